import { DEVICE_STATES, type DeviceState } from '#src/domain/rollout/policy/device-states.js';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsOptional, IsString, Length, Validate, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import { OptionalField } from '#src/platform/common/dto-fields.js';
import { INVALID_CONTROLLER_ID } from '#src/platform/common/device-identifier.js';
import { DEVICE_PROTOCOLS, type DeviceProtocol } from '#src/domain/device/device.entity.js';
import { INVALID_TARGET_TOKEN } from '#src/domain/device/device.service.js';
import { parseIsoTime } from '#src/platform/common/iso-time.js';
import { FLEET_SUMMARY_VERSIONS, type FleetFilter } from '#src/domain/rollout/fleet.service.js';
import { ROLLOUT_STATUSES } from '#src/domain/rollout/rollout.entity.js';
import { CursorMessages, CursorPageQuery, PageOf } from './paging.dto.js';

@ValidatorConstraint({ name: 'isoTime' })
class IsoTime implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && parseIsoTime(value) !== null;
  }
  defaultMessage(): string {
    return DeviceListMessages.seenSince;
  }
}

/** 400 texts of the device list's filters. */
export const DeviceListMessages = {
  seenSince: 'seen_since must be an ISO 8601 date or date-time, e.g. 2026-11-21T10:00:00Z',
  notSeenSince: 'not_seen_since must be an ISO 8601 date or date-time, e.g. 2026-11-21T10:00:00Z',
  q: 'q must be 1 to 128 characters',
  ...CursorMessages,
} as const;

/** `GET /tenants/:tenant/devices` query: paging and filters; every filter given must hold. */
export class DeviceListQuery extends CursorPageQuery {
  @ApiPropertyOptional({ description: 'only members of this group (id or name)', example: 'field-test' })
  @IsOptional()
  @Length(1, 128, { message: 'group must be 1 to 128 characters' })
  @IsString({ message: 'group must be a string' })
  group?: string;

  @ApiPropertyOptional({ description: 'only devices running exactly this firmware version', example: '1.1.0' })
  @IsOptional()
  @Length(1, 64, { message: 'firmware_version must be 1 to 64 characters' })
  @IsString({ message: 'firmware_version must be a string' })
  firmware_version?: string;

  @ApiPropertyOptional({ description: 'only devices of this device type (`dType`)', example: 'ESP32' })
  @IsOptional()
  @Length(1, 64, { message: 'device_type must be 1 to 64 characters' })
  @IsString({ message: 'device_type must be a string' })
  device_type?: string;

  @ApiPropertyOptional({
    description: 'only devices last seen at or after this ISO 8601 time (a time without an offset is UTC)',
    example: '2026-11-21T10:00:00Z',
  })
  @IsOptional()
  @Validate(IsoTime)
  seen_since?: string;

  @ApiPropertyOptional({
    description: 'only devices not seen since this ISO 8601 time: last seen before it, or never (a time without an offset is UTC)',
    example: '2026-11-20T10:00:00Z',
  })
  @IsOptional()
  @Validate(IsoTime, { message: DeviceListMessages.notSeenSince })
  not_seen_since?: string;

  @ApiPropertyOptional({
    description:
      'text search, any case: devices whose name or identifier contains it, or whose mac contains it as hex digits (separators ' +
      'ignored: `b2:01`, `B201` and `b2-01` find the same devices)',
    example: 'pump',
  })
  @IsOptional()
  @Length(1, 128, { message: DeviceListMessages.q })
  @IsString({ message: DeviceListMessages.q })
  q?: string;

  /** The filters as the service takes them. */
  filter(): FleetFilter {
    const time = (text: string | undefined) => (text === undefined ? undefined : (parseIsoTime(text) ?? undefined));
    return {
      group: this.group,
      firmwareVersion: this.firmware_version,
      deviceType: this.device_type,
      seenSince: time(this.seen_since),
      notSeenSince: time(this.not_seen_since),
      text: this.q,
    };
  }
}

/** A device of a tenant as operators see it (docs/decisions.md §6, §9, §11). */
export class DeviceSummaryResponse {
  @ApiProperty({
    description:
      'its identifier (docs/decisions.md §11): a hardware address, canonical (uppercase, colon-separated), or a hawkBit controller id',
    example: 'AC:67:B2:01:02:03',
  })
  mac: string;

  @ApiProperty({ description: 'device name (the mac when the device registered without one)', example: 'pump-7' })
  name: string;

  @ApiProperty({ description: 'the version the device last reported running', example: '1.1.0' })
  firmware_version: string;

  @ApiProperty({ description: 'device type (`dType`): the type of the device key it registered with', example: 'ESP32' })
  device_type: string;

  @ApiProperty({
    description: 'ISO 8601 UTC time of its last register / next-rollout / success request, or null',
    example: '2026-11-21T10:05:00.000Z',
    nullable: true,
    type: String,
  })
  last_seen_at: string | null;

  @ApiProperty({ description: 'registration time, ISO 8601 UTC', example: '2026-11-21T10:00:00.000Z' })
  created_at: string;

  @ApiProperty({
    description: 'the device protocol it speaks: `asvin` (the version controller) or `ddi` (a hawkBit client)',
    enum: DEVICE_PROTOCOLS,
    example: 'asvin',
  })
  protocol: DeviceProtocol;

  @ApiProperty({ description: 'whether it has a target token of its own (a DDI device an operator created)', example: false })
  has_target_token: boolean;

  @ApiProperty({
    description: 'the attributes it reported about itself (DDI `configData`), or null before it reported any',
    type: 'object',
    additionalProperties: { type: 'string' },
    nullable: true,
    example: null,
  })
  attributes: Record<string, string> | null;
}

/** A device just created, or whose target token was just replaced: the only answers that show the token. */
export class DeviceWithTokenResponse extends DeviceSummaryResponse {
  @ApiProperty({
    description:
      'its target token (DDI `Authorization: TargetToken <token>`), shown only here: only its SHA-256 is kept (rotate it if lost)',
    example: 'Jq3hV0cOq0Wc7o1xA4pQ2mZr9dY8kL5u',
  })
  target_token: string;
}

/** 400 texts of the device creation body. */
export const CreateDeviceMessages = {
  controllerId: INVALID_CONTROLLER_ID,
  deviceType: 'device_type must be 1 to 64 printable characters',
  name: 'name must be 1 to 128 characters without control characters',
  firmwareVersion: 'firmware_version must be 1 to 64 printable characters',
  targetToken: INVALID_TARGET_TOKEN,
} as const;

/**
 * Body of `POST /tenants/:tenant/devices`: a device that authenticates with its own target token
 * (a hawkBit DDI device, docs/decisions.md §11).
 */
export class CreateDeviceDto {
  @ApiProperty({
    description: "its controller id: 1 to 256 letters, digits or -._~!$&'()*+,;=:@ (a hardware address is stored canonical)",
    example: 'pump-7',
  })
  @IsString({ message: CreateDeviceMessages.controllerId })
  @IsDefined({ message: CreateDeviceMessages.controllerId })
  controller_id: string;

  @ApiProperty({ description: 'its device type (`dType`): which firmware it is offered', example: 'pump-board' })
  @IsString({ message: CreateDeviceMessages.deviceType })
  @IsDefined({ message: CreateDeviceMessages.deviceType })
  device_type: string;

  @ApiPropertyOptional({ description: 'a name, 1 to 128 characters; the controller id when absent', example: 'pump 7, hall B' })
  @OptionalField()
  @IsString({ message: CreateDeviceMessages.name })
  name?: string;

  @ApiPropertyOptional({ description: 'the version it runs, if known; none until it confirms an update when absent', example: '1.0.0' })
  @OptionalField()
  @IsString({ message: CreateDeviceMessages.firmwareVersion })
  firmware_version?: string;

  @ApiPropertyOptional({
    description:
      'a target token to keep (a device moved from a hawkBit server keeps its security token): 1 to 128 printable characters ' +
      'without spaces; a new random one when absent',
    example: 'a0e3b3c1f9d34c5e9c0a7e2b6d4f8a1c',
  })
  @OptionalField()
  @IsString({ message: CreateDeviceMessages.targetToken })
  target_token?: string;
}

/**
 * One page of devices, by mac: the paging of every list, and `next`, the cursor of the page after
 * it (pass it as `after`), `null` on the last page.
 */
export class DevicePage extends PageOf(DeviceSummaryResponse, {
  description: 'devices by mac',
  example: [
    {
      mac: 'AC:67:B2:01:02:03',
      name: 'pump-7',
      firmware_version: '1.1.0',
      device_type: 'ESP32',
      last_seen_at: '2026-11-21T10:05:00.000Z',
      created_at: '2026-11-21T10:00:00.000Z',
      protocol: 'asvin',
      has_target_token: false,
      attributes: null,
    },
  ],
}) {
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'cursor of the page after this one: the identifier of its last device, to pass as `after`; `null` on the last page. ' +
      'With `after`, `page` is 1 (a cursor page has no number) and `total` still counts every device that passes the filters.',
    example: 'AC:67:B2:01:02:03',
  })
  next: string | null;
}

/** A group, by reference. */
export class GroupRefResponse {
  @ApiProperty({ description: 'group id', example: 2 })
  id: number;

  @ApiProperty({ description: 'group name', example: 'field-test' })
  name: string;
}

/** A rollout that targets a device, with what the device reported for it. */
export class DeviceRolloutResponse {
  @ApiProperty({ description: 'rollout id', example: 1 })
  id: number;

  @ApiProperty({ description: 'rollout name', example: '1.1.0 to field test' })
  name: string;

  @ApiProperty({ description: 'rollout status', enum: ROLLOUT_STATUSES, example: 'active' })
  status: string;

  @ApiProperty({ type: GroupRefResponse, description: 'the group it targets', example: { id: 2, name: 'field-test' } })
  group: GroupRefResponse;

  @ApiProperty({ description: 'firmware id', example: 1 })
  firmware_id: number;

  @ApiProperty({ description: 'target firmware version', example: '1.1.0' })
  version: string;

  @ApiProperty({ description: 'whether the device reported success for it (docs/decisions.md §6)', example: true })
  succeeded: boolean;

  @ApiProperty({
    description: 'ISO 8601 UTC time of the success report, or null',
    example: '2026-11-21T10:06:00.000Z',
    nullable: true,
    type: String,
  })
  reported_at: string | null;

  @ApiProperty({ description: 'the version the device reported with its success, or null', example: '1.1.0', nullable: true, type: String })
  reported_version: string | null;

  @ApiProperty({
    description: 'its state in the rollout (docs/decisions.md §10); null when it has none yet (not placed or offered)',
    enum: DEVICE_STATES,
    nullable: true,
    example: 'confirmed',
  })
  state: DeviceState | null;

  @ApiProperty({ description: 'its wave (1-based); null when it has no state yet', type: Number, nullable: true, example: 1 })
  wave: number | null;
}

/** One device with its groups, current version, last seen time and rollout history. */
export class DeviceDetailResponse extends DeviceSummaryResponse {
  @ApiProperty({
    type: [GroupRefResponse],
    description: "the tenant's groups the device is a member of, by name",
    example: [{ id: 2, name: 'field-test' }],
  })
  groups: GroupRefResponse[];

  @ApiProperty({
    type: [String],
    description: 'labels operators set on the device: `key=value` or a plain word, by key (docs/decisions.md §10.3)',
    example: ['site=lab', 'beta'],
  })
  labels: string[];

  @ApiProperty({
    type: [DeviceRolloutResponse],
    description: 'rollouts that target the device through one of its groups, or that it reported success for, by id',
    example: [
      {
        id: 1,
        name: '1.1.0 to field test',
        status: 'finished',
        group: { id: 2, name: 'field-test' },
        firmware_id: 1,
        version: '1.1.0',
        succeeded: true,
        reported_at: '2026-11-21T10:06:00.000Z',
        reported_version: '1.1.0',
        state: 'confirmed',
        wave: 1,
      },
    ],
  })
  rollouts: DeviceRolloutResponse[];
}

/** Devices of one firmware version and device type. */
export class FleetVersionResponse {
  @ApiProperty({ description: 'firmware version the devices last reported', example: '1.1.0' })
  firmware_version: string;

  @ApiProperty({ description: 'device type (`dType`)', example: 'ESP32' })
  device_type: string;

  @ApiProperty({ description: 'devices running it', example: 61234 })
  devices: number;

  @ApiProperty({ description: 'of those, seen in the last 24 hours', example: 60012 })
  seen_last_day: number;
}

/** How a tenant's fleet is made up and how much of it was seen lately. */
export class FleetSummaryResponse {
  @ApiProperty({ description: 'registered devices', example: 100000 })
  devices: number;

  @ApiProperty({ description: 'devices seen in the last hour', example: 81234 })
  seen_last_hour: number;

  @ApiProperty({ description: 'devices seen in the last 24 hours', example: 99120 })
  seen_last_day: number;

  @ApiProperty({
    type: [FleetVersionResponse],
    description: `devices per firmware version and device type, most devices first, at most ${FLEET_SUMMARY_VERSIONS} combinations`,
    example: [
      { firmware_version: '1.1.0', device_type: 'ESP32', devices: 61234, seen_last_day: 60012 },
      { firmware_version: '1.0.0', device_type: 'ESP32', devices: 38766, seen_last_day: 39108 },
    ],
  })
  versions: FleetVersionResponse[];

  @ApiProperty({
    description: `combinations of firmware version and device type in all (more than \`versions\` lists when over ${FLEET_SUMMARY_VERSIONS})`,
    example: 2,
  })
  versions_total: number;

  @ApiProperty({ description: 'the time the counts are for, ISO 8601 UTC', example: '2026-11-21T10:00:00.000Z' })
  at: string;
}
