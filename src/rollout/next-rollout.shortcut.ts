import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { tokenOf } from '#src/auth/device-token.guard.js';
import { DeviceTokenService } from '#src/auth/device-token.service.js';
import type { RouteShortcut } from '#src/common/route-shortcut.js';
import { shortcutDto } from '#src/common/validation.pipe.js';
import { NextRolloutDto } from './dto/rollout.dto.js';
import { RolloutService } from './rollout.service.js';

/**
 * `POST /api/device/next/rollout` for what devices send on every check: a token with a valid
 * signature, a valid body, a registered device, a key that is not revoked. The token's key, the
 * device and the candidates are one read ({@link RolloutService.next}); anything else (no or bad
 * token, invalid body, revoked key, unknown device, an error) goes to the route
 * (`RolloutController.next`), which answers it with its guard, pipe and filter.
 */
@Injectable()
export class NextRolloutShortcut implements RouteShortcut {
  constructor(
    private readonly tokens: DeviceTokenService,
    private readonly rollouts: RolloutService,
  ) {}

  async serve(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const token = tokenOf(request);
    const key = token === undefined ? null : this.tokens.signedKey(token);
    if (key === null) return false;
    const dto = shortcutDto<NextRolloutDto>(NextRolloutDto, request.body);
    if (dto === undefined) return false;
    let answer: Awaited<ReturnType<RolloutService['next']>>;
    try {
      answer = await this.rollouts.next(key, dto);
    } catch {
      // 401, 404 or a failure: nothing was written; the route answers it (and logs a failure).
      return false;
    }
    await reply.send(answer);
    return true;
  }
}
