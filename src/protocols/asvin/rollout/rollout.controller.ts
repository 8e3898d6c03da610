import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { DeviceTokenGuard } from '#src/protocols/asvin/auth/device-token.guard.js';
import { Principal, type DevicePrincipal } from '#src/protocols/asvin/auth/device-principal.js';
import { RouteSchema } from '@nestjs/platform-fastify';
import type { MessageResponse } from '#src/platform/common/dto/message.dto.js';
import { INVALID_MAC } from '#src/platform/common/mac.js';
import { DeviceMessages } from '#src/domain/device/device.service.js';
import { ApiJsonBodyErrors, ApiMessageResponse, ApiServerError } from '#src/platform/openapi/api-responses.js';
import { ApiDeviceAuth } from '#src/protocols/asvin/auth/api-device-auth.js';
import {
  MAX_FAILURE_MESSAGE,
  NEXT_ROLLOUT_BODY,
  NEXT_ROLLOUT_REPLY,
  ROLLOUT_OFFER,
  RolloutFailureDto,
  RolloutSuccessDto,
  type NextRolloutBody,
  type RolloutResponse,
} from '#src/protocols/asvin/rollout/dto/rollout.dto.js';
import { SchemaBody } from '#src/platform/http/body-schema.js';
import { schemaRef } from '#src/platform/openapi/named-schemas.js';
import { NextRolloutShortcut } from './next-rollout.shortcut.js';
import { RolloutMessages, RolloutService } from './rollout.service.js';
import { ShortcutWith } from '#src/platform/http/route-shortcut.js';

/** 404 of a report about a rollout: none of the tenant's rollouts has this id and targets the device. */
const ApiReportedRolloutNotFound = (): MethodDecorator =>
  ApiMessageResponse(404, 'The rollout does not exist in the tenant or does not target the device.', RolloutMessages.notFound);

/** Rollout endpoints of the version controller (docs/device-interface.md), mounted at `VC_URL`. */
@ApiTags('Rollouts')
@ApiDeviceAuth()
@ApiServerError()
@Controller('api/device')
@UseGuards(DeviceTokenGuard)
export class RolloutController {
  constructor(private readonly rollouts: RolloutService) {}

  /**
   * `POST /api/device/next/rollout` → 200 rollout or `{}`; 404 `Device does't exist!`. Body and
   * answer are JSON Schemas ({@link NEXT_ROLLOUT_BODY}, {@link NEXT_ROLLOUT_REPLY}) that Fastify
   * compiles. A request with a valid token and a valid body is answered by {@link NextRolloutShortcut}
   * before Nest's pipeline; this handler answers the rest (after the guard: 401 before 400).
   */
  @Post('next/rollout')
  @HttpCode(200)
  @RouteSchema({ body: NEXT_ROLLOUT_BODY.schema, response: { 200: NEXT_ROLLOUT_REPLY } })
  @ShortcutWith(NextRolloutShortcut)
  @ApiOperation({
    summary: 'Ask which rollout comes next for a device',
    description:
      'The body’s `firmware_version` is what the device runs now: it becomes the device’s `firmware-version`. The answer ' +
      'is the active rollout of the tenant that targets the device, is for its type and upgrades it, by lowest priority, ' +
      'earliest start date, lowest id (docs/decisions.md §8); `{}` when there is none: a device decides "no rollout" by the ' +
      'absence of `rollout_id`.',
  })
  @ApiBody({ required: true, schema: schemaRef('NextRolloutBody', NEXT_ROLLOUT_BODY.schema) })
  @ApiOkResponse({
    description: 'The next rollout, every value a JSON string; or `{}` when there is none.',
    content: {
      'application/json': {
        schema: {
          oneOf: [
            schemaRef('RolloutResponse', ROLLOUT_OFFER),
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
  next(@Principal() principal: DevicePrincipal, @SchemaBody() body: NextRolloutBody): Promise<RolloutResponse | Record<string, never>> {
    return this.rollouts.next(principal, body);
  }

  /** `POST /api/device/success/rollout` → 200 `Successfully inserted!` | `Existing Record`; 404 `Rollout not found`. */
  @Post('success/rollout')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Report that a device completed a rollout',
    description:
      'The first report for (rollout, device) answers `Successfully inserted!`: the device is `installed`, or `confirmed` ' +
      'at once when the report carries the rollout’s target version (then it also becomes the device’s ' +
      '`firmware-version`; another version changes it neither back nor forward). A device that reported another version ' +
      'is confirmed by its next poll or registration on the target version, or counts as fallen back on any other ' +
      '(docs/decisions.md §10). Later reports answer `Existing Record` (docs/decisions.md §6).',
  })
  @ApiMessageResponse(200, 'Recorded, or already recorded.', [RolloutMessages.inserted, RolloutMessages.existing])
  @ApiReportedRolloutNotFound()
  @ApiJsonBodyErrors([INVALID_MAC, 'rollout_id must be a string'])
  success(@Principal() principal: DevicePrincipal, @Body() body: RolloutSuccessDto): Promise<MessageResponse> {
    return this.rollouts.success(principal, body);
  }

  /**
   * `POST /api/device/failure/rollout` → 200 `Failure recorded` | `Existing Record`; 404 `Rollout not found`.
   * Beyond the documented device interface and optional for devices (docs/decisions.md §10).
   */
  @Post('failure/rollout')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Report that a rollout failed on a device',
    description:
      'Optional for devices, beyond the documented device interface. Same tenant and target rules as the success report. ' +
      'The device counts as `failed` in the rollout, with its message, and is not offered the rollout again until an ' +
      'operator retries it: `Failure recorded`. A device already confirmed, failed, fallen back or timed out in the rollout is left as ' +
      'it is: `Existing Record`. The device’s `firmware-version` is not changed (docs/decisions.md §10).',
  })
  @ApiMessageResponse(200, 'Recorded, or left as it was.', [RolloutMessages.failureRecorded, RolloutMessages.existing])
  @ApiReportedRolloutNotFound()
  @ApiJsonBodyErrors([INVALID_MAC, 'rollout_id must be a string', `message must be at most ${MAX_FAILURE_MESSAGE} characters`])
  failure(@Principal() principal: DevicePrincipal, @Body() body: RolloutFailureDto): Promise<MessageResponse> {
    return this.rollouts.failure(principal, body);
  }
}
