import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { createHmac, createSecretKey, randomUUID, type KeyObject } from 'node:crypto';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { TenantRepository } from '#src/domain/tenant/tenant.repository.js';
import { admitDeviceKey } from '#src/domain/tenant/device-key-admission.js';
import type { DevicePrincipal } from './device-principal.js';
import { VerifiedTokenCache } from './verified-token-cache.js';

/** JWT claims of a device token (docs/decisions.md §4). */
interface DeviceClaims {
  /** Device key id, as text. */
  sub: string;
  /** Tenant id. */
  tid: number;
  iat: number;
  exp: number;
  jti: string;
}

/** The JOSE header of every device token, base64url: `{"alg":"HS256","typ":"JWT"}` as jsonwebtoken writes it. */
const HS256_HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/**
 * An HS256 JWT of `claims`, byte for byte what jsonwebtoken's `sign` makes of the same claims
 * (header, then the claims as `JSON.stringify` orders them), without its per-call option checks.
 */
export function signHs256(claims: object, key: KeyObject): string {
  const input = `${HS256_HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`;
}

/**
 * Issues and checks device tokens: HS256 with the secret as a KeyObject built once at start
 * (see AuthModule), lifetime `JWT_TTL_SECONDS`. Verified tokens' claims are cached until their
 * `exp` ({@link VerifiedTokenCache}); the device-key check (revoked, gone, other tenant) runs on
 * every request, so a revoked key's tokens stop at once.
 */
@Injectable()
export class DeviceTokenService {
  private readonly verified = new VerifiedTokenCache<DeviceClaims>();
  private readonly signingKey: KeyObject;

  constructor(
    private readonly jwt: JwtService,
    private readonly tenants: TenantRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.signingKey = createSecretKey(config.jwtSecret);
  }

  /** A token for a device key of a tenant; `iat`/`exp` are epoch seconds from `nowMs`. */
  issue(deviceKeyId: number, tenantId: number, nowMs: number): string {
    const iat = Math.floor(nowMs / 1000);
    const claims: DeviceClaims = { sub: String(deviceKeyId), tid: tenantId, iat, exp: iat + this.config.jwtTtlSeconds, jti: randomUUID() };
    return signHs256(claims, this.signingKey);
  }

  /**
   * The principal of a token, or `null` when anything is wrong with it: malformed, bad
   * signature, expired, or its device key revoked or gone (docs/decisions.md §3, §4).
   */
  async verify(token: string): Promise<DevicePrincipal | null> {
    const claims = this.claims(token);
    if (claims === null) return null;
    const key = await this.tenants.findTokenKey(Number(claims.sub));
    if (!admitDeviceKey(key, claims.tid)) return null;
    return { tenantId: key.tenantId, deviceKeyId: key.id, deviceType: key.deviceType };
  }

  /**
   * The tenant and device key a token names when its signature is valid and it has not expired,
   * else `null`. The device key itself is NOT checked: a caller that uses this instead of
   * {@link verify} reads the key itself and applies {@link admitDeviceKey} (RolloutService.next does).
   */
  signedKey(token: string): Pick<DevicePrincipal, 'tenantId' | 'deviceKeyId'> | null {
    const claims = this.claims(token);
    return claims === null ? null : { tenantId: claims.tid, deviceKeyId: Number(claims.sub) };
  }

  /** The checked claims of a token with a valid signature that has not expired, else `null`. */
  private claims(token: string): DeviceClaims | null {
    // jsonwebtoken's own clock: seconds of the system time.
    const cached = this.verified.get(token, Math.floor(Date.now() / 1000));
    if (cached !== undefined) return cached;
    let claims: DeviceClaims;
    try {
      claims = this.jwt.verify<DeviceClaims>(token, { algorithms: ['HS256'] });
    } catch {
      return null;
    }
    if (typeof claims.sub !== 'string' || !/^\d+$/.test(claims.sub) || typeof claims.tid !== 'number') return null;
    this.verified.set(token, claims);
    return claims;
  }
}
