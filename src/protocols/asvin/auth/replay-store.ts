import type { Redis } from 'ioredis';

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
 * the default) or in Redis when `REDIS_URL` is set ({@link RedisReplayStore}).
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
