import type { Redis } from 'ioredis';
import type { RedisFallback } from '#src/platform/redis/redis-fallback.js';

/** A login's `(device key, timestamp)` pair, accepted once for a single-device key (docs/decisions.md §4). */
export interface LoginClaim {
  deviceKeyId: number;
  /** The device key text as sent. */
  deviceKey: string;
  /** The login's Unix timestamp, seconds. */
  timestamp: number;
}

/**
 * The replay store (docs/decisions.md §4): remembers every accepted `(device key, timestamp)` of
 * a single-device key so a second login with it fails, across every instance. Keys shared by
 * many devices are never claimed (their devices send byte-identical logins). In the database (`LoginNonceRepository`,
 * the default) or in Redis when `REDIS_URL` is set ({@link RedisReplayStore}, through
 * {@link FallbackReplayStore}: in the database while Redis is unreachable).
 */
export abstract class ReplayStore {
  /**
   * Records a login's `(device key, timestamp)`.
   * @param nowMs server time, epoch milliseconds.
   * @param forgetBeforeSeconds claims with older timestamps can no longer pass the skew check,
   *   so the store may forget them.
   * @returns `false` when it was recorded before (a replay).
   */
  abstract claim(login: LoginClaim, nowMs: number, forgetBeforeSeconds: number): Promise<boolean>;
}

/**
 * Claims in Redis: `SET firmledger:login-nonce:<device key>:<timestamp> 1 NX PX <ms>`, kept until
 * the timestamp falls behind `forgetBeforeSeconds`. Keyed by the device key text, which is
 * unique across databases, unlike its id.
 */
export class RedisReplayStore extends ReplayStore {
  /** @param prefix namespace of the keys, `firmledger:`. */
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    super();
  }

  override async claim(login: LoginClaim, _nowMs: number, forgetBeforeSeconds: number): Promise<boolean> {
    const keepMs = Math.max(1000, (login.timestamp - forgetBeforeSeconds) * 1000);
    const key = `${this.prefix}login-nonce:${login.deviceKey}:${login.timestamp}`;
    return (await this.redis.set(key, '1', 'PX', keepMs, 'NX')) === 'OK';
  }
}

/**
 * Claims in Redis while it answers, in the database ({@link database}) while it does not
 * ({@link RedisFallback}, docs/deployment.md "Outages"). For as long as a claim made in the
 * database during an outage could pass the skew check, a claim in Redis is also made in the
 * database, so a login accepted during the outage is a replay after it too.
 */
export class FallbackReplayStore extends ReplayStore {
  constructor(
    private readonly fallback: RedisFallback,
    private readonly redis: ReplayStore,
    private readonly database: ReplayStore,
  ) {
    super();
  }

  override async claim(login: LoginClaim, nowMs: number, forgetBeforeSeconds: number): Promise<boolean> {
    let inDatabase = false;
    const fresh = await this.fallback.run(
      () => this.redis.claim(login, nowMs, forgetBeforeSeconds),
      () => {
        inDatabase = true;
        return this.database.claim(login, nowMs, forgetBeforeSeconds);
      },
    );
    // Claims of the outage have timestamps up to the skew after its last fallback; they are
    // stale once the oldest timestamp that passes (forgetBeforeSeconds + skew) is past that.
    if (!fresh || inDatabase || forgetBeforeSeconds * 1000 > this.fallback.lastFallbackAt) return fresh;
    return this.database.claim(login, nowMs, forgetBeforeSeconds);
  }
}
