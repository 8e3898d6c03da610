import {
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  Inject,
  Param,
  PayloadTooLargeException,
  Post,
  Put,
  Query,
  UseGuards,
} from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Readable } from 'node:stream';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { BodyStream, CSV_MEDIA_TYPE, NDJSON_MEDIA_TYPE, StreamBody, unsupportedStreamType } from '#src/platform/http/stream-body.js';
import { DeviceImportService, importTooLarge } from '#src/domain/device-import/device-import.service.js';
import { DeviceImportQuery, DeviceImportRejectedResponse, DeviceImportResponse } from '#src/operator/dto/device-import.dto.js';
import { IdentifierParamPipe } from '#src/platform/http/identifier-param.pipe.js';
import { canonicalIdentifier, INVALID_IDENTIFIER } from '#src/platform/common/device-identifier.js';
import { ApiJsonBodyErrors, ApiMessageResponse, ApiOperatorAuth, ApiServerError } from '#src/platform/openapi/api-responses.js';
import type { Actor } from '#src/domain/ledger/ledger-actor.js';
import { DeviceService, deviceExists } from '#src/domain/device/device.service.js';
import { DeviceLabelService, labelTexts } from '#src/domain/device/device-labels.service.js';
import { DeviceLabelsChangeDto, DeviceLabelsDto, DeviceLabelsResponse } from '#src/operator/dto/device-labels.dto.js';
import { FleetService, deviceNotFound } from '#src/domain/rollout/fleet.service.js';
import type { Tenant } from '#src/domain/tenant/tenant.entity.js';
import {
  CreateDeviceDto,
  CreateDeviceMessages,
  DeviceDetailResponse,
  DeviceListMessages,
  DeviceListQuery,
  DevicePage,
  DeviceWithTokenResponse,
} from '#src/operator/dto/fleet.dto.js';
import { DeviceDecisionsResponse, DeviceRolloutStateResponse } from '#src/operator/dto/rollout-device.dto.js';
import { ApiListQueryErrors, ApiOperatorChange, ApiTenantNotFound, ApiTenantParam, OperatorExamples } from './operator-docs.js';
import { INVALID_OPERATOR_TOKEN, OperatorActor, OperatorTokenGuard } from './operator-token.guard.js';
import { SESSION_ENDED } from '#src/domain/access/operator-session.service.js';
import { TenantPipe } from './tenant.pipe.js';
import {
  deviceDetailResponse,
  deviceImportResponse,
  deviceDecisionsResponse,
  deviceRolloutStateResponse,
  deviceSummaryResponse,
  deviceWithTokenResponse,
  pageAnswer,
} from './operator-responses.js';

/** 404 of a route on one device: an unknown tenant, or no device of the tenant has this identifier (another tenant's neither). */
const ApiDeviceNotFound = (): MethodDecorator =>
  ApiTenantNotFound('the tenant has no device with this identifier', deviceNotFound('AC:67:B2:01:02:03'));

/** The `:mac` path parameter: a device identifier (docs/decisions.md §11). */
const ApiDeviceParam = (): MethodDecorator =>
  ApiParam({
    name: 'mac',
    description: 'The device’s identifier: a hardware address in any accepted notation (docs/decisions.md §6), or a controller id (§11).',
    example: 'ac-67-b2-01-02-03',
  });

/**
 * Devices of a tenant under `OPERATOR_URL` (docs/decisions.md §9, §11): asvin devices register
 * themselves (docs/decisions.md §6); hawkBit DDI devices are created here with a target token, or
 * register by polling with a gateway token. A device of another tenant is not found here.
 */
/** A device identifier as the label answers name it: canonical when it is one, else as given. */
const canonical = (text: string): string => canonicalIdentifier(text.trim()) ?? text;

@ApiTags('Devices')
@ApiOperatorAuth(INVALID_OPERATOR_TOKEN, SESSION_ENDED)
@ApiServerError()
@ApiTenantParam()
@UseGuards(OperatorTokenGuard)
@Controller('tenants/:tenant/devices')
export class OperatorDevicesController {
  constructor(
    private readonly fleet: FleetService,
    private readonly devices: DeviceService,
    private readonly imports: DeviceImportService,
    private readonly labels: DeviceLabelService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * `POST /tenants/:tenant/devices/labels` `{devices, add?, remove?}` → 200 each device's labels now
   * (docs/decisions.md §10.3); 400 naming `devices`, `add`, `remove` or `labels` (nothing changes); 404 a device.
   */
  @Post('labels')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Add labels to and remove label keys from many devices at once',
    description:
      'All in one transaction: a bad label or an unknown device changes nothing. Dynamic groups that filter by labels are ' +
      'recomputed (docs/decisions.md §10.3).',
  })
  @ApiOkResponse({ type: [DeviceLabelsResponse], description: 'Each device with its labels now, in the order given.' })
  @ApiJsonBodyErrors([
    'devices must name at least one device',
    '"site=" is not a label: key or key=value, each 1 to 64 characters of letters, digits and ._:/-',
  ])
  @ApiDeviceNotFound()
  @ApiOperatorChange()
  async changeLabels(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Body() body: DeviceLabelsChangeDto,
    @OperatorActor() actor: Actor,
  ): Promise<DeviceLabelsResponse[]> {
    const answers = await this.labels.addRemove(tenant.id, body.devices, body.add ?? [], body.remove ?? [], actor);
    return body.devices.map((device, i) => ({ mac: canonical(device), labels: labelTexts(answers[i]) }));
  }

  /**
   * `PUT /tenants/:tenant/devices/:mac/labels` `{labels}` → 200 the device's labels (replacing the ones it had,
   * docs/decisions.md §10.3); 400 naming `labels`; 404.
   */
  @Put(':mac/labels')
  @ApiOperation({
    summary: "Set a device's labels (replaces the ones it has)",
    description: 'At most 20 labels, each `key=value` or a plain word. Dynamic groups that filter by labels are recomputed.',
  })
  @ApiDeviceParam()
  @ApiOkResponse({ type: DeviceLabelsResponse, description: 'The device with its labels now.' })
  @ApiJsonBodyErrors(['labels must be an array of strings', 'a device keeps at most 20 labels'])
  @ApiDeviceNotFound()
  @ApiOperatorChange()
  async setLabels(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('mac', IdentifierParamPipe) mac: string,
    @Body() body: DeviceLabelsDto,
    @OperatorActor() actor: Actor,
  ): Promise<DeviceLabelsResponse> {
    return { mac, labels: labelTexts(await this.labels.set(tenant.id, mac, body.labels, actor)) };
  }

  /**
   * `POST /tenants/:tenant/devices/import[?format=csv|ndjson]` with a `text/csv` or
   * `application/x-ndjson` body, read as a stream → 200 {@link DeviceImportResponse}; 400 naming
   * each bad row (at most 20; nothing written); 404 tenant; 413 over `DEVICE_IMPORT_MAX_BYTES`;
   * 415 another media type (docs/decisions.md §14).
   */
  @Post('import')
  @HttpCode(200)
  @StreamBody([CSV_MEDIA_TYPE, NDJSON_MEDIA_TYPE])
  @ApiOperation({
    summary: 'Import devices in bulk from CSV or NDJSON rows: all or nothing, devices the tenant has skipped',
    description:
      'Each row: `mac` or `controller_id`, `device_type`, and optionally `firmware_version`, `name`, `group` (a group of the tenant, ' +
      'by name or id, that must exist), `attributes` (an object; in CSV a JSON text), `protocol` (`asvin` or `ddi`; default `asvin` for ' +
      'a hardware address, else `ddi`) and `target_token` (a DDI device’s token to keep). CSV has a header line naming its columns. ' +
      'Every row is checked by the rules of creating one device; with any bad row nothing is written, and the first 20 are named with ' +
      'their line. Rows whose identifier the tenant has are skipped (counted, the first 100 listed). One ledger entry ' +
      '`device.imported` records the counts and the SHA-256 of the body (docs/decisions.md §14).',
  })
  @ApiConsumes(CSV_MEDIA_TYPE, NDJSON_MEDIA_TYPE)
  @ApiBody({
    description: 'The rows: CSV with a header line, or one JSON object a line.',
    schema: { type: 'string', example: 'mac,device_type,firmware_version,name,group\nAC:67:B2:01:02:03,ESP32,1.0.0,hall B 1,hall-b\n' },
  })
  @ApiOkResponse({ type: DeviceImportResponse, description: 'What the import did.' })
  @ApiResponse({ status: 400, type: DeviceImportRejectedResponse, description: 'Bad rows (nothing was written), or a bad `format`.' })
  @ApiTenantNotFound()
  @ApiMessageResponse(413, 'The body is over DEVICE_IMPORT_MAX_BYTES (declared, or as soon as it crosses it).', importTooLarge(268_435_456))
  @ApiMessageResponse(
    415,
    'The body is neither `text/csv` nor `application/x-ndjson`.',
    unsupportedStreamType([CSV_MEDIA_TYPE, NDJSON_MEDIA_TYPE]),
  )
  @ApiOperatorChange()
  async import(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Query() query: DeviceImportQuery,
    @Headers('content-type') contentType: string | undefined,
    @Headers('content-length') contentLength: string | undefined,
    @BodyStream() body: Readable,
    @OperatorActor() actor: Actor,
  ): Promise<DeviceImportResponse> {
    const maxBytes = this.config.deviceImportMaxBytes;
    if (contentLength !== undefined && /^\d+$/.test(contentLength) && Number(contentLength) > maxBytes) {
      throw new PayloadTooLargeException(importTooLarge(maxBytes));
    }
    const format = query.format ?? (contentType?.split(';')[0].trim().toLowerCase() === NDJSON_MEDIA_TYPE ? 'ndjson' : 'csv');
    return deviceImportResponse(await this.imports.import({ tenantId: tenant.id, format, input: body, maxBytes, actor }));
  }

  /**
   * `POST /tenants/:tenant/devices` `{controller_id, device_type, name?, firmware_version?, target_token?}`
   * → 201 the device with its target token (shown only here); 400 naming a bad field; 404 tenant;
   * 409 `Device "x" exists`.
   */
  @Post()
  @ApiOperation({
    summary: 'Create a hawkBit DDI device with its own target token (shown in this answer only)',
    description:
      'The device authenticates with `Authorization: TargetToken <target_token>` on the DDI component (docs/decisions.md §11). ' +
      'Give `target_token` to keep the security token a device had on a hawkBit server; else a new random one is made. ' +
      'Only its SHA-256 is kept: rotate it if it is lost. Recorded on the ledger as `device.created` (without the token).',
  })
  @ApiCreatedResponse({ type: DeviceWithTokenResponse, description: 'The device, with its target token.' })
  @ApiJsonBodyErrors([
    CreateDeviceMessages.controllerId,
    CreateDeviceMessages.deviceType,
    CreateDeviceMessages.name,
    CreateDeviceMessages.firmwareVersion,
    CreateDeviceMessages.targetToken,
  ])
  @ApiTenantNotFound()
  @ApiMessageResponse(409, 'The tenant has a device with this identifier.', deviceExists('pump-7'))
  @ApiOperatorChange()
  async create(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Body() body: CreateDeviceDto,
    @OperatorActor() actor: Actor,
  ): Promise<DeviceWithTokenResponse> {
    const created = await this.devices.create({
      tenantId: tenant.id,
      controllerId: body.controller_id,
      deviceType: body.device_type,
      name: body.name,
      firmwareVersion: body.firmware_version,
      targetToken: body.target_token,
      actor,
    });
    return deviceWithTokenResponse(created);
  }

  /**
   * `POST /tenants/:tenant/devices/:mac/target-token/rotate` → 200 the device with its new target
   * token (shown only here); 400 bad identifier; 404.
   */
  @Post(':mac/target-token/rotate')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Give a device a new target token (shown in this answer only); the old one stops working at once',
    description: 'Recorded on the ledger as `device.target-token-rotated` (without the token).',
  })
  @ApiDeviceParam()
  @ApiOkResponse({ type: DeviceWithTokenResponse, description: 'The device, with its new target token.' })
  @ApiMessageResponse(400, 'The path parameter is not a device identifier.', INVALID_IDENTIFIER)
  @ApiDeviceNotFound()
  @ApiOperatorChange()
  async rotateToken(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('mac', IdentifierParamPipe) identifier: string,
    @OperatorActor() actor: Actor,
  ): Promise<DeviceWithTokenResponse> {
    return deviceWithTokenResponse(await this.devices.rotateTargetToken(tenant.id, identifier, actor));
  }

  /**
   * `GET /tenants/:tenant/devices?page|after&per_page&group&firmware_version&device_type&seen_since&not_seen_since&q`
   * → 200 one page of devices by mac, with `next`, the cursor of the page after it (`after`, keyset
   * paging); 400 naming a bad parameter (also `after` with `page` past 1); 404 `Tenant "x" not found` or
   * `Group "x" not found`. `q` searches names (any case) and macs (hex digits, separators ignored).
   */
  @Get()
  @ApiOperation({
    summary: "List a tenant's devices, by mac, filtered by group, firmware version, device type, last-seen time and a text search",
  })
  @ApiOkResponse({ type: DevicePage, description: 'One page of the devices that pass every filter given, by mac.' })
  @ApiListQueryErrors(
    'group must be 1 to 128 characters',
    'firmware_version must be 1 to 64 characters',
    'device_type must be 1 to 64 characters',
    DeviceListMessages.seenSince,
    DeviceListMessages.notSeenSince,
    DeviceListMessages.q,
    DeviceListMessages.after,
    DeviceListMessages.afterWithPage,
  )
  @ApiTenantNotFound('the `group` filter names no group of the tenant', OperatorExamples.groupNotFound)
  async list(@Param('tenant', TenantPipe) tenant: Tenant, @Query() query: DeviceListQuery): Promise<DevicePage> {
    const counted = await this.fleet.listDevices(tenant.id, query.filter(), query.slice());
    return { ...pageAnswer(counted, query, deviceSummaryResponse), next: counted.next };
  }

  /**
   * `GET /tenants/:tenant/devices/:mac` (a mac in any notation, or a controller id) → 200 device
   * with groups, attributes and rollout history; 400 bad identifier; 404.
   */
  @Get(':mac')
  @ApiOperation({ summary: 'One device with its groups, current version, last seen time, attributes and rollout history' })
  @ApiDeviceParam()
  @ApiOkResponse({ type: DeviceDetailResponse, description: 'The device.' })
  @ApiMessageResponse(400, 'The path parameter is not a device identifier.', INVALID_IDENTIFIER)
  @ApiDeviceNotFound()
  async get(@Param('tenant', TenantPipe) tenant: Tenant, @Param('mac', IdentifierParamPipe) mac: string): Promise<DeviceDetailResponse> {
    return deviceDetailResponse(await this.fleet.describeDevice(tenant.id, mac));
  }

  /**
   * `GET /tenants/:tenant/devices/:mac/decisions` → 200 `{"items": [{rollout_id, rollout_name, kind, reason, until}]}`:
   * what each rollout that is active or paused and names a group of the device does for it now, and
   * why (docs/decisions.md §10.5); 400 bad identifier; 404.
   */
  @Get(':mac/decisions')
  @ApiOperation({
    summary:
      'Why a device gets (or does not get) each running rollout of its groups: offer, wait (until when), skip or settled, with the reason',
  })
  @ApiDeviceParam()
  @ApiOkResponse({
    type: DeviceDecisionsResponse,
    description: 'One item per active or paused rollout naming a group of the device, by rollout id.',
  })
  @ApiMessageResponse(400, 'The path parameter is not a device identifier.', INVALID_IDENTIFIER)
  @ApiDeviceNotFound()
  async decisions(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('mac', IdentifierParamPipe) mac: string,
  ): Promise<DeviceDecisionsResponse> {
    return deviceDecisionsResponse(await this.fleet.decisions(tenant.id, mac));
  }

  /**
   * `GET /tenants/:tenant/devices/:mac/rollouts` → 200 the device's state in each rollout it has
   * one in, by rollout id, with each state's time and message; 400 bad identifier; 404.
   */
  @Get(':mac/rollouts')
  @ApiOperation({
    summary: "A device's history across rollouts: its state, wave and attempts in each, every change with its time and message",
  })
  @ApiDeviceParam()
  @ApiOkResponse({ type: [DeviceRolloutStateResponse], description: 'One entry per rollout the device has a state in, by rollout id.' })
  @ApiMessageResponse(400, 'The path parameter is not a device identifier.', INVALID_IDENTIFIER)
  @ApiDeviceNotFound()
  async rollouts(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('mac', IdentifierParamPipe) mac: string,
  ): Promise<DeviceRolloutStateResponse[]> {
    return (await this.fleet.deviceRollouts(tenant.id, mac)).map(deviceRolloutStateResponse);
  }
}
