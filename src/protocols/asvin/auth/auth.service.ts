import { Inject, Injectable, Logger, Optional, UnauthorizedException } from '@nestjs/common';
import { HttpErrorWithHeaders } from '#src/platform/http/http-error.filter.js';
import { randomBytes } from 'node:crypto';
import { Clock } from '#src/platform/common/clock.js';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { LoginMetrics, type LoginOutcome } from './login-metrics.js';
import { TenantRepository } from '#src/domain/tenant/tenant.repository.js';
import { DeviceTokenService } from './device-token.service.js';
import type { LoginDto, LoginResponse } from '#src/protocols/asvin/auth/dto/login.dto.js';
import { LoginLimit } from './login-limit.js';
import { ReplayStore } from './replay-store.js';
import { deviceSignature, signatureMatches } from './signature.js';

/** The one 401 text of login, whatever the reason (docs/decisions.md §4: no oracle). */
export const INVALID_CREDENTIALS = 'Invalid credentials';

/** HMAC key for the dummy signature check of an unknown device key. */
const UNKNOWN_KEY_SECRET = randomBytes(24).toString('base64url');

/** Device login (docs/decisions.md §4). */
@Injectable()
export class AuthService {
  private readonly logger = new Logger('Login');

  constructor(
    private readonly tenants: TenantRepository,
    private readonly nonces: ReplayStore,
    private readonly tokens: DeviceTokenService,
    private readonly clock: Clock,
    private readonly limit: LoginLimit,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    /** Absent in the CLI, which serves no logins. */
    @Optional() private readonly metrics?: LoginMetrics,
  ) {}

  /**
   * Exchanges a device key, timestamp and signature for a token (docs/decisions.md §4).
   * A byte-identical login is accepted again (devices sharing a key send them), except for a
   * key marked `single_device`, whose `(device key, timestamp)` is accepted once.
   * @param client the client address (the rate limit's) and the request id (for the log).
   * @throws HttpErrorWithHeaders 401 `Invalid credentials` for an unknown or revoked key or a
   *   wrong signature, counted as a failed login of the address and key ({@link LoginLimit}),
   *   with the rate-limit headers after it; 429 when that failure was one too many.
   * @throws UnauthorizedException `Invalid credentials` for a timestamp outside
   *   ±`AUTH_MAX_SKEW_SECONDS` or a replay of a single-device key (not counted).
   *   The reason is logged (with the request id), never returned.
   */
  async login(dto: LoginDto, client: { ip: string; requestId?: string }): Promise<LoginResponse> {
    const now = this.clock.now();
    const key = await this.tenants.findLoginKey(dto.device_key);
    if (!key) {
      // Same work as a known key with a wrong signature, so timing tells nothing either.
      signatureMatches(deviceSignature(UNKNOWN_KEY_SECRET, dto.timestamp, dto.device_key), dto.device_signature);
      return this.failed('unknown device key', 'unknown_key', dto, client);
    }
    if (!signatureMatches(deviceSignature(key.customerKey, dto.timestamp, dto.device_key), dto.device_signature)) {
      return this.failed(`wrong signature for device key #${key.id}`, 'bad_signature', dto, client);
    }
    if (key.revokedAt !== null) return this.failed(`revoked device key #${key.id}`, 'revoked_key', dto, client);
    const timestamp = Number(dto.timestamp);
    if (Math.abs(now / 1000 - timestamp) > this.config.authMaxSkewSeconds) {
      return this.reject(`stale timestamp ${timestamp} for device key #${key.id}`, 'stale_timestamp', client.requestId);
    }
    if (key.singleDevice) {
      const windowStartSeconds = Math.floor(now / 1000) - 2 * this.config.authMaxSkewSeconds;
      if (!(await this.nonces.claim({ deviceKeyId: key.id, deviceKey: dto.device_key, timestamp }, now, windowStartSeconds))) {
        return this.reject(`replayed timestamp ${timestamp} for single-device key #${key.id}`, 'replay', client.requestId);
      }
    }
    const token = this.tokens.issue(key.id, key.tenantId, now);
    this.metrics?.record('success');
    return { token };
  }

  /** A failed guess: logged, counted against the address and key, answered 401 (or 429). */
  private async failed(reason: string, outcome: LoginOutcome, dto: LoginDto, client: { ip: string; requestId?: string }): Promise<never> {
    this.log(reason, client.requestId);
    const headers = await this.limit.countFailure(client.ip, dto.device_key);
    this.metrics?.record(outcome);
    throw new HttpErrorWithHeaders(401, INVALID_CREDENTIALS, headers);
  }

  private reject(reason: string, outcome: LoginOutcome, requestId: string | undefined): never {
    this.metrics?.record(outcome);
    this.log(reason, requestId);
    throw new UnauthorizedException(INVALID_CREDENTIALS);
  }

  private log(reason: string, requestId: string | undefined): void {
    const msg = `login refused: ${reason}`;
    this.logger.warn(requestId === undefined ? msg : { msg, reqId: requestId });
  }
}
