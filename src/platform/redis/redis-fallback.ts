import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { Clock } from '#src/platform/common/clock.js';
import { errorMessage } from '#src/platform/logging/error-message.js';

/**
 * Runs what Redis holds (login counters, the replay store; docs/decisions.md §4) in Redis while it
 * answers, and in the database while it does not (docs/deployment.md "Outages"), without waiting
 * for it: with the connection down a request goes to the database at once (no offline queue), a
 * command that fails or times out ({@link REDIS_OPTIONS}) falls back for that request, and the
 * connection comes back by itself in the background.
 *
 * The log says so once per outage: a warning when the first request falls back, and an info line
 * when Redis answers again.
 */
export class RedisFallback {
  private readonly logger = new Logger('Redis');
  private down = false;
  private lastError = '';
  private fellBackAt = -Infinity;

  constructor(
    private readonly redis: Redis,
    private readonly clock: Clock,
  ) {
    redis.on('error', (error: Error) => (this.lastError = error.message));
    redis.on('ready', () => this.up());
  }

  /**
   * `onRedis()` when the connection is ready and it succeeds; else `onDatabase()`, at once.
   * @throws what `onDatabase` throws (e.g. the database is unreachable too).
   */
  async run<T>(onRedis: () => Promise<T>, onDatabase: () => Promise<T>): Promise<T> {
    if (this.redis.status !== 'ready') {
      this.fellBack(this.lastError || `connection ${this.redis.status}`);
      return onDatabase();
    }
    let result: T;
    try {
      result = await onRedis();
    } catch (error) {
      this.fellBack(errorMessage(error));
      // A command that timed out on a connection that still looks open: connect again, in the
      // background, rather than let every request wait for the same silence.
      if (!isReply(error) && this.redis.status === 'ready') this.redis.disconnect(true);
      return onDatabase();
    }
    this.up();
    return result;
  }

  /** When a request last went to the database instead of Redis, epoch milliseconds of the app's clock (`-Infinity`: never). */
  get lastFallbackAt(): number {
    return this.fellBackAt;
  }

  /** Whether Redis answers a `PING` now (within the command timeout); `false` at once when the connection is down. */
  async reachable(): Promise<boolean> {
    if (this.redis.status !== 'ready') return false;
    try {
      await this.redis.ping();
      return true;
    } catch {
      return false;
    }
  }

  private fellBack(cause: string): void {
    this.fellBackAt = this.clock.now();
    if (this.down) return;
    this.down = true;
    this.logger.warn(`Redis unreachable: ${cause}; login counters and the replay store use the database until it is back`);
  }

  private up(): void {
    if (!this.down) return;
    this.down = false;
    this.lastError = '';
    this.logger.log('Redis back: login counters and the replay store are in Redis again');
  }
}

/** Whether Redis itself answered with an error (`ReplyError`: a full memory, a read-only replica), rather than not at all. */
function isReply(error: unknown): boolean {
  return (error as { name?: unknown } | null)?.name === 'ReplyError';
}

/**
 * Connection options that keep a request from waiting on Redis: no offline queue (a command on a
 * connection that is down fails at once), no retry of a command across reconnects, a command
 * answered within a second or failed, a connection made within two seconds or retried in the
 * background (ioredis reconnects by itself, 50 ms to 2 s apart).
 */
export const REDIS_OPTIONS = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  commandTimeout: 1000,
  connectTimeout: 2000,
} as const;
