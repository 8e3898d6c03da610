import { Inject, Injectable, Logger, Optional, UnauthorizedException } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Clock } from '#src/common/clock.js';
import type { AppConfig } from '#src/config/app-config.js';
import { APP_CONFIG } from '#src/config/config.module.js';
import { LoginMetrics, type LoginOutcome } from '#src/metrics/login-metrics.js';
import { TenantRepository } from '#src/tenant/tenant.repository.js';
import { DeviceTokenService } from './device-token.service.js';
import type { LoginDto, LoginResponse } from './dto/login.dto.js';
import { ReplayStore } from './replay-store.js';
import { deviceSignature, signatureMatches } from './signature.js';

/** The one 401 text of login, whatever the reason (CONTRACT.md §4: no oracle). */
export const INVALID_CREDENTIALS = 'Invalid credentials';

/** HMAC key for the dummy signature check of an unknown device key. */
const UNKNOWN_KEY_SECRET = randomBytes(24).toString('base64url');

/** Device login (CONTRACT.md §4). */
@Injectable()
export class AuthService {
  private readonly logger = new Logger('Login');

  constructor(
    private readonly tenants: TenantRepository,
    private readonly nonces: ReplayStore,
    private readonly tokens: DeviceTokenService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    /** Absent in the CLI, which serves no logins. */
    @Optional() private readonly metrics?: LoginMetrics,
  ) {}

  /**
   * Exchanges a device key, timestamp and signature for a token.
   * @throws UnauthorizedException `Invalid credentials` for an unknown or revoked key, a wrong
   *   signature, a timestamp outside ±`AUTH_MAX_SKEW_SECONDS`, or a replayed
   *   `(device key, timestamp)`; the reason is logged (with `requestId`), never returned.
   */
  async login(dto: LoginDto, requestId?: string): Promise<LoginResponse> {
    const now = this.clock.now();
    const key = await this.tenants.findLoginKey(dto.device_key);
    if (!key) {
      // Same work as a known key with a wrong signature, so timing tells nothing either.
      signatureMatches(deviceSignature(UNKNOWN_KEY_SECRET, dto.timestamp, dto.device_key), dto.device_signature);
      return this.reject('unknown device key', 'unknown_key', requestId);
    }
    if (!signatureMatches(deviceSignature(key.customerKey, dto.timestamp, dto.device_key), dto.device_signature)) {
      return this.reject(`wrong signature for device key #${key.id}`, 'bad_signature', requestId);
    }
    if (key.revokedAt !== null) return this.reject(`revoked device key #${key.id}`, 'revoked_key', requestId);
    const timestamp = Number(dto.timestamp);
    if (Math.abs(now / 1000 - timestamp) > this.config.authMaxSkewSeconds) {
      return this.reject(`stale timestamp ${timestamp} for device key #${key.id}`, 'stale_timestamp', requestId);
    }
    const windowStartSeconds = Math.floor(now / 1000) - 2 * this.config.authMaxSkewSeconds;
    if (!(await this.nonces.claim({ deviceKeyId: key.id, deviceKey: dto.device_key, timestamp }, now, windowStartSeconds))) {
      return this.reject(`replayed timestamp ${timestamp} for device key #${key.id}`, 'replay', requestId);
    }
    const token = this.tokens.issue(key.id, key.tenantId, now);
    this.metrics?.record('success');
    return { token };
  }

  private reject(reason: string, outcome: LoginOutcome, requestId: string | undefined): never {
    this.metrics?.record(outcome);
    const msg = `login refused: ${reason}`;
    this.logger.warn(requestId === undefined ? msg : { msg, reqId: requestId });
    throw new UnauthorizedException(INVALID_CREDENTIALS);
  }
}
