import { Body, Controller, Delete, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { DeviceTokenGuard } from '#src/protocols/asvin/auth/device-token.guard.js';
import { Principal, type DevicePrincipal } from '#src/protocols/asvin/auth/device-principal.js';
import type { MessageResponse } from '#src/platform/common/dto/message.dto.js';
import { INVALID_MAC } from '#src/platform/common/mac.js';
import { MacParamPipe } from '#src/platform/http/mac-param.pipe.js';
import { RouteSchema } from '@nestjs/platform-fastify';
import { ApiJsonBodyErrors, ApiMessageResponse, ApiServerError } from '#src/platform/openapi/api-responses.js';
import { ApiDeviceAuth } from '#src/protocols/asvin/auth/api-device-auth.js';
import {
  DEVICE_RESPONSE_SCHEMA,
  DeleteDeviceDto,
  DeviceResponse,
  MAC_INPUT_DESCRIPTION,
  RegisterDeviceDto,
} from '#src/protocols/asvin/device/dto/device.dto.js';
import { DeviceMessages, DeviceService } from '#src/domain/device/device.service.js';
import { deviceResponse } from './device-responses.js';

/** Device endpoints of the version controller (docs/device-interface.md), mounted at `VC_URL`. */
@ApiTags('Devices')
@ApiDeviceAuth()
@ApiServerError()
@Controller('api/device')
@UseGuards(DeviceTokenGuard)
export class DeviceController {
  constructor(private readonly devices: DeviceService) {}

  /** `POST /api/device/register` → 200 `Device inserted!` | `Device exists!`. */
  @Post('register')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Register a device',
    description:
      'Registers the mac under the token’s tenant and device key (its type becomes the ledger’s `dType`). ' +
      'A mac the tenant already has answers 200 `Device exists!` and the stored record is unchanged (docs/decisions.md §6).',
  })
  @ApiMessageResponse(200, 'Registered, or already registered (unchanged).', [DeviceMessages.inserted, DeviceMessages.exists])
  @ApiJsonBodyErrors([INVALID_MAC, 'firmware_version must be 1 to 64 characters'])
  register(@Principal() principal: DevicePrincipal, @Body() body: RegisterDeviceDto): Promise<MessageResponse> {
    return this.devices.register(principal, { mac: body.mac, name: body.name, firmwareVersion: body.firmware_version });
  }

  /** `DELETE /api/device/` with `{mac}` → 200 `Device deleted!`; 404 `Device does't exist!`. */
  @Delete()
  @ApiOperation({
    summary: 'Delete a device',
    description: 'The device is named by the body, not the path. Field devices call `/api/device/`; the trailing slash is optional.',
  })
  @ApiMessageResponse(200, 'Deleted.', DeviceMessages.deleted)
  @ApiMessageResponse(404, 'The tenant has no device with this mac (spelled as field devices expect).', DeviceMessages.absent)
  @ApiJsonBodyErrors([INVALID_MAC])
  delete(@Principal() principal: DevicePrincipal, @Body() body: DeleteDeviceDto): Promise<MessageResponse> {
    return this.devices.delete(principal.tenantId, body.mac);
  }

  /** `GET /api/device/` → 200 array of devices, `[]` when none. */
  @Get()
  @ApiOperation({
    summary: 'List all devices of the tenant',
    description: '`[]` when the tenant has none. Field devices call `/api/device/`; the trailing slash is optional.',
  })
  @ApiOkResponse({
    description: 'Every device of the token’s tenant that speaks this interface (hawkBit DDI devices are on the operator API).',
    type: DeviceResponse,
    isArray: true,
  })
  async list(@Principal() principal: DevicePrincipal): Promise<DeviceResponse[]> {
    return (await this.devices.list(principal.tenantId, 'asvin')).map(deviceResponse);
  }

  /** `GET /api/device/:mac` (any notation) → 200 device; 404 `Device does't exist!`. */
  @Get(':mac')
  @RouteSchema({ response: { 200: DEVICE_RESPONSE_SCHEMA } })
  @ApiOperation({ summary: 'Get one device' })
  @ApiParam({ name: 'mac', description: MAC_INPUT_DESCRIPTION, example: 'ac-67-b2-01-02-03' })
  @ApiOkResponse({ description: 'The device.', type: DeviceResponse })
  @ApiMessageResponse(400, 'The path parameter is not a hardware address.', INVALID_MAC)
  @ApiMessageResponse(404, 'The tenant has no device with this mac (spelled as field devices expect).', DeviceMessages.absent)
  async get(@Principal() principal: DevicePrincipal, @Param('mac', MacParamPipe) mac: string): Promise<DeviceResponse> {
    return deviceResponse(await this.devices.get(principal.tenantId, mac));
  }
}
