import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { DatabaseHealthRepository } from './database-health.repository.js';
import { errorMessage } from '#src/platform/logging/error-message.js';

/** How long readiness waits for the database before calling it unreachable, milliseconds. */
export const READINESS_TIMEOUT_MS = 2000;

/** Why the process is not ready, as the `{"message"}` of a 503 `/readyz`; `null` when ready. */
export type NotReady = 'Database unreachable' | 'Shutting down' | null;

/**
 * Readiness: the database answers `SELECT 1` within {@link READINESS_TIMEOUT_MS}, and the
 * process is not shutting down (from the start of the shutdown sequence, so a load balancer
 * stops sending work while requests in flight finish).
 */
@Injectable()
export class HealthService implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Health');
  private shuttingDown = false;

  constructor(private readonly database: DatabaseHealthRepository) {}

  beforeApplicationShutdown(): void {
    this.shuttingDown = true;
  }

  /** `null` when ready, else the reason; a database failure is logged with its cause. */
  async notReady(): Promise<NotReady> {
    if (this.shuttingDown) return 'Shutting down';
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.database.ping(),
        new Promise<never>((_, fail) => {
          timer = setTimeout(() => fail(new Error(`no answer to SELECT 1 within ${READINESS_TIMEOUT_MS} ms`)), READINESS_TIMEOUT_MS);
        }),
      ]);
      return null;
    } catch (error) {
      this.logger.warn(`database unreachable: ${errorMessage(error)}`);
      return 'Database unreachable';
    } finally {
      clearTimeout(timer);
    }
  }
}
