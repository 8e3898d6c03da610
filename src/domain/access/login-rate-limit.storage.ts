import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '#src/platform/common/clock.js';
import { PreparedRead } from '#src/platform/database/prepared-read.js';
import { query } from '#src/platform/database/sql.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';

/** A fixed-window counter as read or just counted. */
export interface LoginRateRecord {
  totalHits: number;
  /** Seconds until the window resets. */
  timeToExpire: number;
  /** Whether the hits are over the limit (`totalHits > limit`). */
  isBlocked: boolean;
  /** Seconds until a blocked client may try again. */
  timeToBlockExpire: number;
  /** Epoch seconds at which the window resets (`X-RateLimit-Reset`). */
  resetsAt: number;
}

/** A `login_rate` row as the drivers return it (PostgreSQL's `bigint` arrives as text). */
interface CounterRow {
  hits: number | string;
  resets_at: number | string;
}

/**
 * Fixed-window counters (failed device logins, console sign-ins, failed operator
 * authentications; docs/decisions.md §4), shared by every instance: in the database
 * ({@link DatabaseLoginRateLimitStorage}, the default) or in Redis when `REDIS_URL` is set
 * (`RedisLoginRateLimitStorage`). The auth module picks one.
 */
export abstract class LoginRateLimitStorage {
  /**
   * Counts one hit for `key` in its current window (a new window starts when the last one ended).
   * @param ttl window length, milliseconds.
   * @param limit hits allowed per window.
   */
  abstract increment(key: string, ttl: number, limit: number): Promise<LoginRateRecord>;

  /**
   * The current window of `key` without counting anything: 0 hits and a window of `ttl` from now
   * when there is none (or it has ended).
   */
  abstract peek(key: string, ttl: number, limit: number): Promise<LoginRateRecord>;
}

/**
 * The record of a window holding `hits` that resets at `resetsAtMs` (epoch milliseconds),
 * seen at `nowMs`.
 */
export function rateRecord(hits: number, resetsAtMs: number, nowMs: number, limit: number): LoginRateRecord {
  const secondsLeft = Math.max(1, Math.ceil((resetsAtMs - nowMs) / 1000));
  return {
    totalHits: hits,
    timeToExpire: secondsLeft,
    isBlocked: hits > limit,
    timeToBlockExpire: hits > limit ? secondsLeft : 0,
    resetsAt: Math.ceil(resetsAtMs / 1000),
  };
}

const UPSERT = `INSERT INTO login_rate (key, hits, resets_at) VALUES ($1, 1, $2)
  ON CONFLICT (key) DO UPDATE SET
    hits = CASE WHEN login_rate.resets_at <= $3 THEN 1 ELSE login_rate.hits + 1 END,
    resets_at = CASE WHEN login_rate.resets_at <= $3 THEN $2 ELSE login_rate.resets_at END`;

const READ = 'SELECT hits, resets_at FROM login_rate WHERE key = $1';

/**
 * Counters in the `login_rate` table (`INSERT ... ON CONFLICT`, the same SQL on SQLite and
 * PostgreSQL); expired rows are pruned now and then. Counting (upsert and read back) is one
 * transaction; a peek is one prepared read, the only one on the path of a successful login.
 */
@Injectable()
export class DatabaseLoginRateLimitStorage extends LoginRateLimitStorage {
  private sincePrune = 0;
  private readonly read: PreparedRead<CounterRow>;

  constructor(
    dataSource: DataSource,
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
  ) {
    super();
    this.read = new PreparedRead(dataSource, READ);
  }

  override async increment(key: string, ttl: number, limit: number): Promise<LoginRateRecord> {
    const now = this.clock.now();
    const row = await this.unitOfWork.transaction(async (manager) => {
      await query(manager, UPSERT, [key, now + ttl, now]);
      const counters = await query<CounterRow[]>(manager, READ, [key]);
      return counters[0];
    });
    if (++this.sincePrune >= 1000) {
      this.sincePrune = 0;
      await this.unitOfWork.write((manager) => query(manager, 'DELETE FROM login_rate WHERE resets_at <= $1', [now]));
    }
    return rateRecord(Number(row.hits), Number(row.resets_at), now, limit);
  }

  override async peek(key: string, ttl: number, limit: number): Promise<LoginRateRecord> {
    const now = this.clock.now();
    const [row] = await this.read.all([key]);
    const resetsAt = row === undefined ? 0 : Number(row.resets_at);
    return resetsAt > now ? rateRecord(Number(row.hits), resetsAt, now, limit) : rateRecord(0, now + ttl, now, limit);
  }
}
