import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { DeviceTokenGuard } from '#src/auth/device-token.guard.js';
import { Principal, type DevicePrincipal } from '#src/auth/device-principal.js';
import type { MessageResponse } from '#src/device/dto/device.dto.js';
import { RouteSchema } from '@nestjs/platform-fastify';
import { NextRolloutDto, ROLLOUT_RESPONSE_SCHEMA, RolloutSuccessDto, type RolloutResponse } from './dto/rollout.dto.js';
import { RolloutService } from './rollout.service.js';

/** Rollout endpoints of the version controller (INTERFACE.md), mounted at `VC_URL`. */
@Controller('api/device')
@UseGuards(DeviceTokenGuard)
export class RolloutController {
  constructor(private readonly rollouts: RolloutService) {}

  /** `POST /api/device/next/rollout` → 200 rollout or `{}`; 404 `Device does't exist!`. */
  @Post('next/rollout')
  @HttpCode(200)
  @RouteSchema({ response: { 200: ROLLOUT_RESPONSE_SCHEMA } })
  next(@Principal() principal: DevicePrincipal, @Body() body: NextRolloutDto): Promise<RolloutResponse | Record<string, never>> {
    return this.rollouts.next(principal, body);
  }

  /** `POST /api/device/success/rollout` → 200 `Successfully inserted!` | `Existing Record`; 404 `Rollout not found`. */
  @Post('success/rollout')
  @HttpCode(200)
  success(@Principal() principal: DevicePrincipal, @Body() body: RolloutSuccessDto): Promise<MessageResponse> {
    return this.rollouts.success(principal, body);
  }
}
