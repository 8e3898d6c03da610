import { Body, Controller, Get, HttpCode, Param, Post, Put, Query, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Actor } from '#src/domain/ledger/ledger-actor.js';
import { ApiJsonBodyErrors, ApiOperatorAuth, ApiServerError } from '#src/platform/openapi/api-responses.js';
import type { Tenant } from '#src/domain/tenant/tenant.entity.js';
import { TenantService } from '#src/domain/tenant/tenant.service.js';
import {
  CreateDeviceKeyDto,
  DdiGatewayDto,
  DeviceKeyPage,
  DeviceKeyResponse,
  INVALID_DDI_GATEWAY,
} from '#src/operator/dto/device-key.dto.js';
import { AutoAcceptDto, DeviceAuthMessages } from '#src/operator/dto/device-auth.dto.js';
import { PageQuery, sliceOf } from '#src/operator/dto/paging.dto.js';
import { IdParamPipe } from './id-param.pipe.js';
import { ApiIdParam, ApiListQueryErrors, ApiOperatorChange, ApiTenantNotFound, ApiTenantParam, OperatorExamples } from './operator-docs.js';
import { INVALID_OPERATOR_TOKEN, OperatorActor, OperatorTokenGuard } from './operator-token.guard.js';
import { SESSION_ENDED } from '#src/domain/access/operator-session.service.js';
import { TenantPipe } from './tenant.pipe.js';
import { deviceKeyResponse, pageAnswer } from './operator-responses.js';

/** Device keys of a tenant under `OPERATOR_URL` (docs/decisions.md §5, §9). */
@ApiTags('Device keys')
@ApiOperatorAuth(INVALID_OPERATOR_TOKEN, SESSION_ENDED)
@ApiServerError()
@ApiTenantParam()
@UseGuards(OperatorTokenGuard)
@Controller('tenants/:tenant/device-keys')
export class OperatorDeviceKeysController {
  constructor(private readonly tenants: TenantService) {}

  /**
   * `POST /tenants/:tenant/device-keys` `{device_type, single_device?, auto_accept?, ddi_gateway?}`
   * → 201 device key; 400 naming the field; 404 tenant. `single_device`: byte-identical logins are
   * replays (docs/decisions.md §4); `auto_accept`: Mender devices new to the tenant are accepted at
   * once (§13); `ddi_gateway`: the key is a hawkBit DDI gateway token (§12).
   */
  @Post()
  @ApiOperation({
    summary: 'Create a device key for devices of one type',
    description:
      'A key is shared by the devices of one type unless `single_device` is true: then a login (device key, timestamp) ' +
      'is accepted once. A Mender device uses a key as its tenant token: with `auto_accept`, one new to the tenant is accepted at ' +
      'once instead of waiting, pending, for an operator. Only a key with `ddi_gateway` is a hawkBit DDI gateway token ' +
      '(`Authorization: GatewayToken`), for the DDI devices of the tenant.',
  })
  @ApiCreatedResponse({ type: DeviceKeyResponse, description: 'The new device key.' })
  @ApiJsonBodyErrors([
    'device_type must be a string',
    OperatorExamples.deviceType,
    'single_device must be true or false',
    DeviceAuthMessages.autoAccept,
    INVALID_DDI_GATEWAY,
  ])
  @ApiTenantNotFound()
  @ApiOperatorChange()
  async create(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Body() body: CreateDeviceKeyDto,
    @OperatorActor() actor: Actor,
  ): Promise<DeviceKeyResponse> {
    return deviceKeyResponse(
      await this.tenants.createDeviceKey(tenant.id, body.device_type, actor, {
        singleDevice: body.single_device,
        autoAccept: body.auto_accept,
        ddiGateway: body.ddi_gateway,
      }),
    );
  }

  /**
   * `PUT /tenants/:tenant/device-keys/:id/auto-accept` `{auto_accept}` → 200 the key; 400; 404
   * (also another tenant's). Recorded on the ledger (docs/decisions.md §13).
   */
  @Put(':id/auto-accept')
  @ApiOperation({
    summary: 'Let a device key accept new Mender devices at once, or stop it',
    description: 'Devices already pending stay pending. Recorded on the ledger as `device-key.auto-accept-set`.',
  })
  @ApiIdParam('Device key id.', 3)
  @ApiOkResponse({ type: DeviceKeyResponse, description: 'The device key.' })
  @ApiJsonBodyErrors([DeviceAuthMessages.autoAccept])
  @ApiTenantNotFound('the tenant has no device key with this id', OperatorExamples.deviceKeyNotFound)
  @ApiOperatorChange()
  async setAutoAccept(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('id', IdParamPipe) id: number,
    @Body() body: AutoAcceptDto,
    @OperatorActor() actor: Actor,
  ): Promise<DeviceKeyResponse> {
    return deviceKeyResponse(await this.tenants.setAutoAccept(tenant.id, String(id), body.auto_accept, actor));
  }

  /**
   * `PUT /tenants/:tenant/device-keys/:id/ddi-gateway` `{ddi_gateway}` → 200 the key; 400; 404
   * (also another tenant's). Makes the key a hawkBit DDI gateway token or stops it being one, from
   * the next request on; recorded on the ledger (docs/decisions.md §12).
   */
  @Put(':id/ddi-gateway')
  @ApiOperation({
    summary: 'Make a device key a hawkBit DDI gateway token, or stop it',
    description:
      'A gateway token (`Authorization: GatewayToken <key>`) speaks for every DDI device of the tenant. Takes effect on the next ' +
      'request. Recorded on the ledger as `device-key.ddi-gateway-set`.',
  })
  @ApiIdParam('Device key id.', 3)
  @ApiOkResponse({ type: DeviceKeyResponse, description: 'The device key.' })
  @ApiJsonBodyErrors([INVALID_DDI_GATEWAY])
  @ApiTenantNotFound('the tenant has no device key with this id', OperatorExamples.deviceKeyNotFound)
  @ApiOperatorChange()
  async setDdiGateway(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('id', IdParamPipe) id: number,
    @Body() body: DdiGatewayDto,
    @OperatorActor() actor: Actor,
  ): Promise<DeviceKeyResponse> {
    return deviceKeyResponse(await this.tenants.setDdiGateway(tenant.id, String(id), body.ddi_gateway, actor));
  }

  /** `GET /tenants/:tenant/device-keys?page&per_page` → 200 one page of keys by id (revoked ones included). */
  @Get()
  @ApiOperation({ summary: "List a tenant's device keys" })
  @ApiOkResponse({ type: DeviceKeyPage, description: 'One page of device keys, by id, revoked ones included.' })
  @ApiListQueryErrors()
  @ApiTenantNotFound()
  async list(@Param('tenant', TenantPipe) tenant: Tenant, @Query() query: PageQuery): Promise<DeviceKeyPage> {
    return pageAnswer(await this.tenants.pageDeviceKeys(tenant.id, sliceOf(query)), query, deviceKeyResponse);
  }

  /**
   * `POST /tenants/:tenant/device-keys/:id/revoke` → 200 the revoked key (again: no-op); 404
   * `Device key "id" not found` (also another tenant's). Logins with the key are refused and its
   * device tokens stop working at once (docs/decisions.md §3, §4).
   */
  @Post(':id/revoke')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Revoke a device key: its logins and device tokens stop working at once',
    description: 'Revoking a revoked key again changes nothing and answers the key.',
  })
  @ApiIdParam('Device key id.', 3)
  @ApiOkResponse({ type: DeviceKeyResponse, description: 'The revoked device key.' })
  @ApiTenantNotFound('the tenant has no device key with this id', OperatorExamples.deviceKeyNotFound)
  @ApiOperatorChange()
  async revoke(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('id', IdParamPipe) id: number,
    @OperatorActor() actor: Actor,
  ): Promise<DeviceKeyResponse> {
    return deviceKeyResponse(await this.tenants.revokeDeviceKey(tenant.id, String(id), actor));
  }
}
