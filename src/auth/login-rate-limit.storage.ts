import { Injectable } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { Clock } from '#src/common/clock.js';
import { NativePrepared, query } from '#src/database/sql.js';
import { UnitOfWork } from '#src/database/unit-of-work.js';

/** A throttler storage record plus the epoch second at which the window resets. */
export interface LoginRateRecord {
  totalHits: number;
  /** Seconds until the window resets. */
  timeToExpire: number;
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
 * Fixed-window login counters per client IP and device key (CONTRACT.md §4), shared by every
 * instance: in the database ({@link DatabaseLoginRateLimitStorage}, the default) or in Redis
 * when `REDIS_URL` is set (`RedisLoginRateLimitStorage`). The auth module picks one.
 */
export abstract class LoginRateLimitStorage implements ThrottlerStorage {
  /**
   * Counts one hit for `key` in its current window.
   * @param ttl window length, milliseconds.
   * @param limit hits allowed per window.
   */
  abstract increment(key: string, ttl: number, limit: number): Promise<LoginRateRecord>;
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

/**
 * Login counters in the `login_rate` table (`INSERT ... ON CONFLICT`, the same SQL on SQLite and
 * PostgreSQL); expired rows are pruned now and then. On better-sqlite3 the upsert returns the
 * counter itself (`RETURNING`): one statement, prepared once, committed on its own, run
 * synchronously when no transaction is open (the login hot path). On the other drivers one
 * upsert and one read in one transaction.
 */
@Injectable()
export class DatabaseLoginRateLimitStorage extends LoginRateLimitStorage {
  private sincePrune = 0;
  private upsertReturning: NativePrepared | undefined;

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
  ) {
    super();
  }

  private count(key: string, now: number, ttl: number): Promise<CounterRow> {
    const native = this.unitOfWork.native;
    if (native !== undefined) {
      const upsert = (this.upsertReturning ??= new NativePrepared(native, `${UPSERT} RETURNING hits, resets_at`));
      return this.unitOfWork.writeNative(() => upsert.statement.all(...upsert.args([key, now + ttl, now]))[0] as CounterRow);
    }
    return this.unitOfWork.transaction(async (manager) => {
      await query(manager, UPSERT, [key, now + ttl, now]);
      const counters = await query<CounterRow[]>(manager, 'SELECT hits, resets_at FROM login_rate WHERE key = $1', [key]);
      return counters[0];
    });
  }

  /**
   * Counts one hit for `key`.
   * @param ttl window length, milliseconds.
   * @param limit hits allowed per window.
   */
  override async increment(key: string, ttl: number, limit: number): Promise<LoginRateRecord> {
    const now = this.clock.now();
    const row = await this.count(key, now, ttl);
    const hits = Number(row.hits);
    const resetsAtMs = Number(row.resets_at);
    if (++this.sincePrune >= 1000) {
      this.sincePrune = 0;
      await this.unitOfWork.write((manager) => query(manager, 'DELETE FROM login_rate WHERE resets_at <= $1', [now]));
    }
    return rateRecord(hits, resetsAtMs, now, limit);
  }
}
