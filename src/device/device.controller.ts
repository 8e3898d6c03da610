import { Body, Controller, Delete, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { DeviceTokenGuard } from '#src/auth/device-token.guard.js';
import { Principal, type DevicePrincipal } from '#src/auth/device-principal.js';
import { MacParamPipe } from '#src/common/mac-param.pipe.js';
import { RouteSchema } from '@nestjs/platform-fastify';
import { DEVICE_RESPONSE_SCHEMA, DeleteDeviceDto, RegisterDeviceDto, type DeviceResponse, type MessageResponse } from './dto/device.dto.js';
import { DeviceService } from './device.service.js';

/** Device endpoints of the version controller (INTERFACE.md), mounted at `VC_URL`. */
@Controller('api/device')
@UseGuards(DeviceTokenGuard)
export class DeviceController {
  constructor(private readonly devices: DeviceService) {}

  /** `POST /api/device/register` → 200 `Device inserted!` | `Device exists!`. */
  @Post('register')
  @HttpCode(200)
  register(@Principal() principal: DevicePrincipal, @Body() body: RegisterDeviceDto): Promise<MessageResponse> {
    return this.devices.register(principal, body);
  }

  /** `DELETE /api/device/` with `{mac}` → 200 `Device deleted!`; 404 `Device does't exist!`. */
  @Delete()
  delete(@Principal() principal: DevicePrincipal, @Body() body: DeleteDeviceDto): Promise<MessageResponse> {
    return this.devices.delete(principal, body.mac);
  }

  /** `GET /api/device/` → 200 array of devices, `[]` when none. */
  @Get()
  list(@Principal() principal: DevicePrincipal): Promise<DeviceResponse[]> {
    return this.devices.list(principal);
  }

  /** `GET /api/device/:mac` (any notation) → 200 device; 404 `Device does't exist!`. */
  @Get(':mac')
  @RouteSchema({ response: { 200: DEVICE_RESPONSE_SCHEMA } })
  get(@Principal() principal: DevicePrincipal, @Param('mac', MacParamPipe) mac: string): Promise<DeviceResponse> {
    return this.devices.get(principal, mac);
  }
}
