import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { IdentifierParamPipe } from '#src/platform/http/identifier-param.pipe.js';
import { INVALID_IDENTIFIER } from '#src/platform/common/device-identifier.js';
import { ApiJsonBodyErrors, ApiMessageResponse, ApiOperatorAuth, ApiServerError } from '#src/platform/openapi/api-responses.js';
import type { Actor } from '#src/domain/ledger/ledger-actor.js';
import { DeviceService, deviceExists } from '#src/domain/device/device.service.js';
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
import { DeviceRolloutStateResponse } from '#src/operator/dto/rollout-device.dto.js';
import { ApiListQueryErrors, ApiOperatorChange, ApiTenantNotFound, ApiTenantParam, OperatorExamples } from './operator-docs.js';
import { INVALID_OPERATOR_TOKEN, OperatorActor, OperatorTokenGuard } from './operator-token.guard.js';
import { SESSION_ENDED } from '#src/domain/access/operator-session.service.js';
import { TenantPipe } from './tenant.pipe.js';
import {
  deviceDetailResponse,
  deviceRolloutStateResponse,
  deviceSummaryResponse,
  deviceWithTokenResponse,
  pageAnswer,
} from './operator-responses.js';
import { sliceOf } from '#src/operator/dto/paging.dto.js';

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
  ) {}

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
   * `GET /tenants/:tenant/devices?page&per_page&group&firmware_version&device_type&seen_since&not_seen_since&q`
   * → 200 one page of devices by mac; 400 naming a bad parameter; 404 `Tenant "x" not found` or
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
  )
  @ApiTenantNotFound('the `group` filter names no group of the tenant', OperatorExamples.groupNotFound)
  async list(@Param('tenant', TenantPipe) tenant: Tenant, @Query() query: DeviceListQuery): Promise<DevicePage> {
    return pageAnswer(await this.fleet.listDevices(tenant.id, query.filter(), sliceOf(query)), query, deviceSummaryResponse);
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
