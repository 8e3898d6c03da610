import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { DeviceTokenGuard } from '#src/auth/device-token.guard.js';
import { Principal, type DevicePrincipal } from '#src/auth/device-principal.js';
import { RouteSchema } from '@nestjs/platform-fastify';
import type { MessageResponse } from '#src/common/dto/message.dto.js';
import { INVALID_MAC } from '#src/common/mac.js';
import { DeviceMessages } from '#src/device/device.service.js';
import { ApiDeviceAuth, ApiJsonBodyErrors, ApiMessageResponse, ApiServerError } from '#src/openapi/api-responses.js';
import { NextRolloutDto, ROLLOUT_RESPONSE_SCHEMA, RolloutResponse, RolloutSuccessDto } from './dto/rollout.dto.js';
import { NextRolloutShortcut } from './next-rollout.shortcut.js';
import { RolloutMessages, RolloutService } from './rollout.service.js';
import { ShortcutWith } from '#src/common/route-shortcut.js';

/** Rollout endpoints of the version controller (INTERFACE.md), mounted at `VC_URL`. */
@ApiTags('Rollouts')
@ApiDeviceAuth()
@ApiServerError()
@Controller('api/device')
@UseGuards(DeviceTokenGuard)
export class RolloutController {
  constructor(private readonly rollouts: RolloutService) {}

  /**
   * `POST /api/device/next/rollout` → 200 rollout or `{}`; 404 `Device does't exist!`. The common
   * case is answered by {@link NextRolloutShortcut} before this pipeline runs.
   */
  @Post('next/rollout')
  @HttpCode(200)
  @RouteSchema({ response: { 200: ROLLOUT_RESPONSE_SCHEMA } })
  @ShortcutWith(NextRolloutShortcut)
  @ApiOperation({
    summary: 'Ask which rollout comes next for a device',
    description:
      'The body’s `firmware_version` is what the device runs now: it becomes the device’s `firmware-version`. The answer ' +
      'is the active rollout of the tenant that targets the device, is for its type and upgrades it, by lowest priority, ' +
      'earliest start date, lowest id (CONTRACT.md §8); `{}` when there is none: a device decides "no rollout" by the ' +
      'absence of `rollout_id`.',
  })
  @ApiExtraModels(RolloutResponse)
  @ApiOkResponse({
    description: 'The next rollout, every value a JSON string; or `{}` when there is none.',
    content: {
      'application/json': {
        schema: {
          oneOf: [
            { $ref: getSchemaPath(RolloutResponse) },
            { type: 'object', description: 'No rollout for this device.', maxProperties: 0, example: {} },
          ],
        },
        examples: {
          rollout: {
            summary: 'A rollout',
            value: {
              rollout_id: '1',
              rollout_name: '1.1.0 to field test',
              priority: '1',
              start_date: '2026-01-01 00:00:00',
              version: '1.1.0',
              firmware_id: '1',
            },
          },
          none: { summary: 'No rollout', value: {} },
        },
      },
    },
  })
  @ApiMessageResponse(404, 'The tenant has no device with this mac.', DeviceMessages.absent)
  @ApiJsonBodyErrors([INVALID_MAC, 'firmware_version must be 1 to 64 characters'])
  next(@Principal() principal: DevicePrincipal, @Body() body: NextRolloutDto): Promise<RolloutResponse | Record<string, never>> {
    return this.rollouts.next(principal, body);
  }

  /** `POST /api/device/success/rollout` → 200 `Successfully inserted!` | `Existing Record`; 404 `Rollout not found`. */
  @Post('success/rollout')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Report that a device completed a rollout',
    description:
      'The first report for (rollout, device) answers `Successfully inserted!`, sets the device’s `firmware-version` and ' +
      'counts toward the rollout’s progress; later ones answer `Existing Record` (CONTRACT.md §6).',
  })
  @ApiMessageResponse(200, 'Recorded, or already recorded.', [RolloutMessages.inserted, RolloutMessages.existing])
  @ApiMessageResponse(404, 'The rollout does not exist in the tenant or does not target the device.', RolloutMessages.notFound)
  @ApiJsonBodyErrors([INVALID_MAC, 'rollout_id must be a string'])
  success(@Principal() principal: DevicePrincipal, @Body() body: RolloutSuccessDto): Promise<MessageResponse> {
    return this.rollouts.success(principal, body);
  }
}
