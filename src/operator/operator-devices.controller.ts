import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { MacParamPipe } from '#src/platform/http/mac-param.pipe.js';
import { INVALID_MAC } from '#src/platform/common/mac.js';
import { ApiMessageResponse, ApiOperatorAuth, ApiServerError } from '#src/platform/openapi/api-responses.js';
import { FleetService, deviceNotFound } from '#src/domain/rollout/fleet.service.js';
import type { Tenant } from '#src/domain/tenant/tenant.entity.js';
import { DeviceListMessages, DeviceDetailResponse, DeviceListQuery, DevicePage } from '#src/operator/dto/fleet.dto.js';
import { DeviceRolloutStateResponse } from '#src/operator/dto/rollout.dto.js';
import { ApiListQueryErrors, ApiTenantNotFound, ApiTenantParam, OperatorExamples } from './operator-docs.js';
import { INVALID_OPERATOR_TOKEN, OperatorTokenGuard } from './operator-token.guard.js';
import { SESSION_ENDED } from '#src/domain/access/operator-session.service.js';
import { TenantPipe } from './tenant.pipe.js';
import { deviceDetailResponse, deviceRolloutStateResponse, deviceSummaryResponse, pageAnswer } from './operator-responses.js';
import { sliceOf } from '#src/operator/dto/paging.dto.js';

/** 404 of a route on one device: an unknown tenant, or no device of the tenant has this mac (another tenant's neither). */
const ApiDeviceNotFound = (): MethodDecorator =>
  ApiTenantNotFound('the tenant has no device with this mac', deviceNotFound('AC:67:B2:01:02:03'));

/**
 * Devices of a tenant under `OPERATOR_URL` (docs/decisions.md §9): read-only; devices register
 * themselves (docs/decisions.md §6). A mac of another tenant is not found here.
 */
@ApiTags('Devices')
@ApiOperatorAuth(INVALID_OPERATOR_TOKEN, SESSION_ENDED)
@ApiServerError()
@ApiTenantParam()
@UseGuards(OperatorTokenGuard)
@Controller('tenants/:tenant/devices')
export class OperatorDevicesController {
  constructor(private readonly fleet: FleetService) {}

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

  /** `GET /tenants/:tenant/devices/:mac` (any notation) → 200 device with groups and rollout history; 400 bad mac; 404. */
  @Get(':mac')
  @ApiOperation({ summary: 'One device with its groups, current version, last seen time and rollout history' })
  @ApiParam({ name: 'mac', description: 'Hardware address in any accepted notation (docs/decisions.md §6).', example: 'ac-67-b2-01-02-03' })
  @ApiOkResponse({ type: DeviceDetailResponse, description: 'The device.' })
  @ApiMessageResponse(400, 'The path parameter is not a hardware address.', INVALID_MAC)
  @ApiDeviceNotFound()
  async get(@Param('tenant', TenantPipe) tenant: Tenant, @Param('mac', MacParamPipe) mac: string): Promise<DeviceDetailResponse> {
    return deviceDetailResponse(await this.fleet.describeDevice(tenant.id, mac));
  }

  /**
   * `GET /tenants/:tenant/devices/:mac/rollouts` → 200 the device's state in each rollout it has
   * one in, by rollout id, with each state's time and message; 400 bad mac; 404.
   */
  @Get(':mac/rollouts')
  @ApiOperation({
    summary: "A device's history across rollouts: its state, wave and attempts in each, every change with its time and message",
  })
  @ApiParam({ name: 'mac', description: 'Hardware address in any accepted notation (docs/decisions.md §6).', example: 'ac-67-b2-01-02-03' })
  @ApiOkResponse({ type: [DeviceRolloutStateResponse], description: 'One entry per rollout the device has a state in, by rollout id.' })
  @ApiMessageResponse(400, 'The path parameter is not a hardware address.', INVALID_MAC)
  @ApiDeviceNotFound()
  async rollouts(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('mac', MacParamPipe) mac: string,
  ): Promise<DeviceRolloutStateResponse[]> {
    return (await this.fleet.deviceRollouts(tenant.id, mac)).map(deviceRolloutStateResponse);
  }
}
