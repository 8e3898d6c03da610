import type { Redis } from 'ioredis';
import type { Clock } from '#src/platform/common/clock.js';
import type { RedisFallback } from '#src/platform/redis/redis-fallback.js';
import { LoginRateLimitStorage, rateRecord, type LoginRateRecord } from './login-rate-limit.storage.js';

/**
 * Counts a hit and reads the window's time left in one step: INCR, and PEXPIRE when the key has
 * no expiry yet (its first hit, or a key left without one). Returns `[hits, ms left]`.
 */
const HIT_SCRIPT = `
local hits = redis.call('INCR', KEYS[1])
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return {hits, left}
`;

/** Reads a counter and its time left in one step: `[hits, ms left]`, `[0, -2]` when there is none. */
const PEEK_SCRIPT = `
local hits = redis.call('GET', KEYS[1])
if not hits then return {0, -2} end
return {tonumber(hits), redis.call('PTTL', KEYS[1])}
`;

type CounterCommand = (key: string, windowMs?: number) => Promise<[number, number]>;

/**
 * Fixed-window counters in Redis (`REDIS_URL`), shared by every instance using that Redis: one
 * key per counter, `firmledger:login-rate:<key>`, that expires with its window (docs/decisions.md §4).
 */
export class RedisLoginRateLimitStorage extends LoginRateLimitStorage {
  private readonly hit: CounterCommand;
  private readonly read: CounterCommand;

  /** @param prefix namespace of the keys, `firmledger:`. */
  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly clock: Clock,
  ) {
    super();
    // defineCommand sends EVALSHA, and the script itself once if Redis does not know it yet.
    if (!('firmledgerLoginHit' in redis)) redis.defineCommand('firmledgerLoginHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    if (!('firmledgerLoginPeek' in redis)) redis.defineCommand('firmledgerLoginPeek', { numberOfKeys: 1, lua: PEEK_SCRIPT });
    const commands = redis as unknown as { firmledgerLoginHit: CounterCommand; firmledgerLoginPeek: CounterCommand };
    this.hit = commands.firmledgerLoginHit.bind(redis);
    this.read = commands.firmledgerLoginPeek.bind(redis);
  }

  override async increment(key: string, ttl: number, limit: number): Promise<LoginRateRecord> {
    const [hits, msLeft] = await this.hit(`${this.prefix}login-rate:${key}`, ttl);
    const now = this.clock.now();
    return rateRecord(Number(hits), now + Number(msLeft), now, limit);
  }

  override async peek(key: string, ttl: number, limit: number): Promise<LoginRateRecord> {
    const [hits, msLeft] = await this.read(`${this.prefix}login-rate:${key}`);
    const now = this.clock.now();
    return Number(msLeft) > 0 ? rateRecord(Number(hits), now + Number(msLeft), now, limit) : rateRecord(0, now + ttl, now, limit);
  }
}

/**
 * Counters in Redis while it answers, in the database ({@link database}) while it does not
 * ({@link RedisFallback}, docs/deployment.md "Outages"). The two do not see each other's counts:
 * a counter starts afresh in the other store when Redis goes away or comes back.
 */
export class FallbackLoginRateLimitStorage extends LoginRateLimitStorage {
  constructor(
    private readonly fallback: RedisFallback,
    private readonly redis: LoginRateLimitStorage,
    private readonly database: LoginRateLimitStorage,
  ) {
    super();
  }

  override increment(key: string, ttl: number, limit: number): Promise<LoginRateRecord> {
    return this.fallback.run(
      () => this.redis.increment(key, ttl, limit),
      () => this.database.increment(key, ttl, limit),
    );
  }

  override peek(key: string, ttl: number, limit: number): Promise<LoginRateRecord> {
    return this.fallback.run(
      () => this.redis.peek(key, ttl, limit),
      () => this.database.peek(key, ttl, limit),
    );
  }
}
