import { Injectable } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { Clock } from '#src/common/clock.js';
import { query } from '#src/database/sql.js';
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
 * Fixed-window login counters kept in the database, so every instance sharing it sees the
 * same counts (CONTRACT.md §4). One upsert and one read per login, in one transaction; expired rows are pruned now
 * and then.
 */
@Injectable()
export class LoginRateLimitStorage implements ThrottlerStorage {
  private sincePrune = 0;

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  /**
   * Counts one hit for `key`.
   * @param ttl window length, milliseconds.
   * @param limit hits allowed per window.
   */
  async increment(key: string, ttl: number, limit: number): Promise<LoginRateRecord> {
    const now = this.clock.now();
    const row = await this.unitOfWork.transaction(async (manager) => {
      await query(
        manager,
        `INSERT INTO login_rate (key, hits, resets_at) VALUES ($1, 1, $2)
         ON CONFLICT (key) DO UPDATE SET
           hits = CASE WHEN login_rate.resets_at <= $3 THEN 1 ELSE login_rate.hits + 1 END,
           resets_at = CASE WHEN login_rate.resets_at <= $3 THEN $2 ELSE login_rate.resets_at END`,
        [key, now + ttl, now],
      );
      const counters = await query<CounterRow[]>(manager, 'SELECT hits, resets_at FROM login_rate WHERE key = $1', [key]);
      return counters[0];
    });
    const hits = Number(row.hits);
    const resetsAtMs = Number(row.resets_at);
    if (++this.sincePrune >= 1000) {
      this.sincePrune = 0;
      await this.unitOfWork.write((manager) => query(manager, 'DELETE FROM login_rate WHERE resets_at <= $1', [now]));
    }
    const secondsLeft = Math.max(1, Math.ceil((resetsAtMs - now) / 1000));
    return {
      totalHits: hits,
      timeToExpire: secondsLeft,
      isBlocked: hits > limit,
      timeToBlockExpire: hits > limit ? secondsLeft : 0,
      resetsAt: Math.ceil(resetsAtMs / 1000),
    };
  }
}
