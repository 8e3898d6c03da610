import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { DatabaseHealthRepository } from './database-health.repository.js';
import { errorMessage } from '#src/platform/logging/error-message.js';
import { RedisFallback } from '#src/platform/redis/redis-fallback.js';

/** How long readiness waits for the database before calling it unreachable, milliseconds. */
export const READINESS_TIMEOUT_MS = 2000;

/** Why the process is not ready, as the `{"message"}` of a 503 `/readyz`. */
export type NotReady = 'Database unreachable' | 'Database and Redis unreachable' | 'Shutting down';

/** What a ready process serves without: its `/readyz` says so beside `"status":"ready"`. */
export type Degraded = 'Redis unreachable, logins use the database';

/** Readiness: `ready` with what it serves without, if anything, or why it is not ready. */
export type Readiness = { ready: true; degraded?: Degraded } | { ready: false; reason: NotReady };

/**
 * Readiness: the database answers `SELECT 1` within {@link READINESS_TIMEOUT_MS}, and the
 * process is not shutting down (from the start of the shutdown sequence, so a load balancer
 * stops sending work while requests in flight finish). Redis (`REDIS_URL`) is named when it does
 * not answer, but does not make the process unready: logins fall back to the database
 * (docs/deployment.md "Outages"), and a load balancer that took every instance out for it would
 * turn a Redis outage into a whole one.
 */
@Injectable()
export class HealthService implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Health');
  private shuttingDown = false;

  constructor(
    private readonly database: DatabaseHealthRepository,
    @Inject(RedisFallback) private readonly redis: RedisFallback | null,
  ) {}

  beforeApplicationShutdown(): void {
    this.shuttingDown = true;
  }

  /** Whether the process is ready, and what it lacks; a database failure is logged with its cause. */
  async readiness(): Promise<Readiness> {
    if (this.shuttingDown) return { ready: false, reason: 'Shutting down' };
    const [database, redis] = await Promise.all([this.databaseAnswers(), this.redis ? this.redis.reachable() : true]);
    if (!database) return { ready: false, reason: redis ? 'Database unreachable' : 'Database and Redis unreachable' };
    return redis ? { ready: true } : { ready: true, degraded: 'Redis unreachable, logins use the database' };
  }

  private async databaseAnswers(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.database.ping(),
        new Promise<never>((_, fail) => {
          timer = setTimeout(() => fail(new Error(`no answer to SELECT 1 within ${READINESS_TIMEOUT_MS} ms`)), READINESS_TIMEOUT_MS);
        }),
      ]);
      return true;
    } catch (error) {
      this.logger.warn(`database unreachable: ${errorMessage(error)}`);
      return false;
    } finally {
      clearTimeout(timer);
    }
  }
}
