import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Tenant } from '#src/tenant/tenant.entity.js';
import { TenantService } from '#src/tenant/tenant.service.js';
import { CreateDeviceKeyDto, DeviceKeyPage, DeviceKeyResponse, deviceKeyResponse } from './dto/device-key.dto.js';
import { pageAnswer, sliceOf } from './dto/page-answer.js';
import { PageQuery } from './dto/paging.dto.js';
import { IdParamPipe } from './id-param.pipe.js';
import { INVALID_OPERATOR_TOKEN, OperatorTokenGuard } from './operator-token.guard.js';
import { TenantPipe } from './tenant.pipe.js';

/** Device keys of a tenant under `OPERATOR_URL` (CONTRACT.md §5, §9). */
@ApiTags('device keys')
@ApiBearerAuth('operatorToken')
@ApiUnauthorizedResponse({ description: INVALID_OPERATOR_TOKEN })
@ApiParam({ name: 'tenant', description: 'tenant id or name', example: 'acme' })
@ApiNotFoundResponse({ description: 'Tenant "acme" not found' })
@UseGuards(OperatorTokenGuard)
@Controller('tenants/:tenant/device-keys')
export class DeviceKeysController {
  constructor(private readonly tenants: TenantService) {}

  /** `POST /tenants/:tenant/device-keys` `{device_type}` → 201 device key; 400 naming `device_type`; 404 tenant. */
  @Post()
  @ApiOperation({ summary: 'Create a device key for devices of one type' })
  @ApiCreatedResponse({ type: DeviceKeyResponse })
  @ApiBadRequestResponse({ description: 'device_type must be 1 to 64 printable characters, e.g. ESP32' })
  async create(@Param('tenant', TenantPipe) tenant: Tenant, @Body() body: CreateDeviceKeyDto): Promise<DeviceKeyResponse> {
    return deviceKeyResponse(await this.tenants.createDeviceKey(tenant.id, body.device_type));
  }

  /** `GET /tenants/:tenant/device-keys?page&per_page` → 200 one page of keys by id (revoked ones included). */
  @Get()
  @ApiOperation({ summary: "List a tenant's device keys" })
  @ApiOkResponse({ type: DeviceKeyPage })
  @ApiBadRequestResponse({ description: 'per_page must be at most 500 (and the like, naming the parameter)' })
  async list(@Param('tenant', TenantPipe) tenant: Tenant, @Query() query: PageQuery): Promise<DeviceKeyPage> {
    return pageAnswer(await this.tenants.pageDeviceKeys(tenant.id, sliceOf(query)), query, deviceKeyResponse);
  }

  /**
   * `POST /tenants/:tenant/device-keys/:id/revoke` → 200 the revoked key (again: no-op); 404
   * `Device key "id" not found` (also another tenant's). Logins with the key are refused and its
   * device tokens stop working at once (CONTRACT.md §3, §4).
   */
  @Post(':id/revoke')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke a device key: its logins and device tokens stop working at once' })
  @ApiParam({ name: 'id', description: 'device key id', example: 3 })
  @ApiOkResponse({ type: DeviceKeyResponse })
  @ApiBadRequestResponse({ description: 'id must be a whole number' })
  @ApiNotFoundResponse({ description: 'Device key "3" not found' })
  async revoke(@Param('tenant', TenantPipe) tenant: Tenant, @Param('id', IdParamPipe) id: number): Promise<DeviceKeyResponse> {
    return deviceKeyResponse(await this.tenants.revokeDeviceKey(tenant.id, String(id)));
  }
}
