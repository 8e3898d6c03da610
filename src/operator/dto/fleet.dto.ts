import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length, Validate, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import { parseIsoTime } from '#src/common/iso-time.js';
import type { DeviceView } from '#src/device/device.service.js';
import type { DeviceDetail, DeviceRolloutView, FleetFilter } from '#src/rollout/fleet.service.js';
import { ROLLOUT_STATUSES } from '#src/rollout/rollout.entity.js';
import { PageOf, PageQuery } from './paging.dto.js';

@ValidatorConstraint({ name: 'isoTime' })
class IsoTime implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && parseIsoTime(value) !== null;
  }
  defaultMessage(): string {
    return 'seen_since must be an ISO 8601 date or date-time, e.g. 2026-11-21T10:00:00Z';
  }
}

/** `GET /tenants/:tenant/devices` query: paging and filters; every filter given must hold. */
export class DeviceListQuery extends PageQuery {
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

  /** The filters as the service takes them. */
  filter(): FleetFilter {
    return {
      group: this.group,
      firmwareVersion: this.firmware_version,
      deviceType: this.device_type,
      seenSince: this.seen_since === undefined ? undefined : (parseIsoTime(this.seen_since) ?? undefined),
    };
  }
}

/** A device of a tenant as operators see it (CONTRACT.md §6, §9). */
export class DeviceSummaryResponse {
  @ApiProperty({ description: 'hardware address, canonical (uppercase, colon-separated)', example: 'AC:67:B2:01:02:03' })
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
}

/** One page of devices, by mac. */
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
    },
  ],
}) {}

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

  @ApiProperty({ description: 'whether the device reported success for it (CONTRACT.md §6)', example: true })
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
      },
    ],
  })
  rollouts: DeviceRolloutResponse[];
}

export function deviceSummaryResponse(view: DeviceView): DeviceSummaryResponse {
  return {
    mac: view.mac,
    name: view.name,
    firmware_version: view.firmwareVersion,
    device_type: view.deviceType,
    last_seen_at: view.lastSeenAt,
    created_at: view.createdAt,
  };
}

function deviceRolloutResponse(view: DeviceRolloutView): DeviceRolloutResponse {
  return {
    id: view.id,
    name: view.name,
    status: view.status,
    group: view.group,
    firmware_id: view.firmwareId,
    version: view.version,
    succeeded: view.succeeded,
    reported_at: view.reportedAt,
    reported_version: view.reportedVersion,
  };
}

export function deviceDetailResponse(detail: DeviceDetail): DeviceDetailResponse {
  return { ...deviceSummaryResponse(detail), groups: detail.groups, rollouts: detail.rollouts.map(deviceRolloutResponse) };
}
