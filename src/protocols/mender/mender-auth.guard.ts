import { CanActivate, ExecutionContext, Inject, Injectable, UnauthorizedException, createParamDecorator } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { ErrorMessages, RetryLaterException } from '#src/platform/http/http-error.filter.js';
import { setRequestActor } from '#src/platform/logging/request-actor.js';
import { FailedAuthentication, type FailureRule } from '#src/domain/access/failed-authentication.js';
import { DeviceIdentityService, type IdentifiedDevice } from '#src/domain/identity/device-identity.service.js';

/**
 * The one 401 text of the Mender component's device routes: whatever was wrong with the token
 * (docs/decisions.md §13). The client answers any 401 by authenticating again.
 */
export const MENDER_UNAUTHORIZED = 'A valid device token is required: authenticate again';

const PRINCIPAL = Symbol('firmledger.mender');

/**
 * Admits the Mender component's device routes (docs/decisions.md §13): `Authorization: Bearer
 * <token>` with a token the component's authentication gave, while the device's auth set is
 * accepted and its device key not revoked. Anything else is the one 401 {@link MENDER_UNAUTHORIZED}.
 *
 * Failures follow the one rule for failed authentication ({@link FailedAuthentication},
 * docs/decisions.md §4): a bearer token names nothing, so they count per client address and the
 * kind of token; over `LOGIN_RATE_LIMIT` in `LOGIN_RATE_WINDOW_SECONDS`, failed attempts are
 * answered 429 with `Retry-After`. A valid token is never refused because others failed.
 */
@Injectable()
export class MenderAuthGuard implements CanActivate {
  private readonly rule: FailureRule;

  constructor(
    private readonly identities: DeviceIdentityService,
    private readonly failures: FailedAuthentication,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.rule = { scope: 'mender-token', limit: config.loginRateLimit, windowSeconds: config.loginRateWindowSeconds };
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest & { [PRINCIPAL]?: IdentifiedDevice }>();
    const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    const caller = token === undefined ? null : await this.identities.verifyToken(token);
    if (caller === null) {
      const standing = await this.failures.failed(this.rule, { address: request.ip, subject: 'mender device token' });
      if (standing.retryAfter !== null) throw new RetryLaterException(429, ErrorMessages.tooManyRequests, standing.retryAfter);
      throw new UnauthorizedException(MENDER_UNAUTHORIZED);
    }
    request[PRINCIPAL] = caller;
    setRequestActor(request, `mender ${caller.device.mac}`);
    return true;
  }
}

/** Injects the {@link IdentifiedDevice} set by {@link MenderAuthGuard}. */
export const MenderCaller = createParamDecorator(
  (_data: unknown, context: ExecutionContext): IdentifiedDevice =>
    context.switchToHttp().getRequest<{ [PRINCIPAL]: IdentifiedDevice }>()[PRINCIPAL],
);
