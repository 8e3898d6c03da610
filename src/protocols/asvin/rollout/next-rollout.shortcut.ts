import { Injectable, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { tokenOf } from '#src/protocols/asvin/auth/device-token.guard.js';
import { DeviceTokenService } from '#src/protocols/asvin/auth/device-token.service.js';
import { answerError } from '#src/platform/http/http-error.filter.js';
import type { RouteShortcut } from '#src/platform/http/route-shortcut.js';
import type { NextRolloutBody } from '#src/protocols/asvin/rollout/dto/rollout.dto.js';
import { RolloutService } from './rollout.service.js';

/**
 * `POST /api/device/next/rollout` for what devices send on every check: a token with a valid
 * signature and a valid body (validated by Fastify with the route's schema, `NEXT_ROLLOUT_BODY`:
 * the shortcut reads the outcome, it does not validate). The token's key, the device and the candidates are one read
 * ({@link RolloutService.next}, which applies the one device-key admission rule). Once that work
 * has run, its outcome is the answer: a refusal (revoked key, unknown device) or a failure goes
 * through the one error path ({@link answerError}), never to the route to be run again. Before it
 * (no or bad token, a body its schema refuses), the shortcut gives up, says why at debug
 * level, and the route (`RolloutController.next`) answers with its guard, pipe and filter.
 */
@Injectable()
export class NextRolloutShortcut implements RouteShortcut {
  private readonly logger = new Logger(NextRolloutShortcut.name);

  constructor(
    private readonly tokens: DeviceTokenService,
    private readonly rollouts: RolloutService,
  ) {}

  async serve(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const token = tokenOf(request);
    if (token === undefined) return this.giveUp(request, 'no device token');
    const key = this.tokens.signedKey(token);
    if (key === null) return this.giveUp(request, 'token not valid (signature or expiry)');
    if (request.validationError) return this.giveUp(request, 'body refused by its schema (answered after the guard)');
    let answer: Awaited<ReturnType<RolloutService['next']>>;
    try {
      answer = await this.rollouts.next(key, request.body as NextRolloutBody);
    } catch (error) {
      answerError(error, request, reply);
      return true;
    }
    await reply.send(answer);
    return true;
  }

  private giveUp(request: FastifyRequest, why: string): false {
    this.logger.debug({ msg: `next-rollout shortcut left the request to the route: ${why}`, reqId: request.id });
    return false;
  }
}
