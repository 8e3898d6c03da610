import { Injectable, Logger } from '@nestjs/common';
import { Mutex } from 'async-mutex';
import { DataSource, EntityManager } from 'typeorm';

const BUSY_RETRIES = 5;

/**
 * Runs write transactions. SQLite has one writer and TypeORM shares a single connection for
 * it, so transactions of this process are serialized here instead of interleaving on that
 * connection; a transaction that loses a race with another process (`SQLITE_BUSY`) is run
 * again from the start.
 */
@Injectable()
export class UnitOfWork {
  private readonly logger = new Logger(UnitOfWork.name);
  private readonly writer = new Mutex();

  constructor(private readonly dataSource: DataSource) {}

  /**
   * Runs `work` in one transaction: everything it writes commits together or not at all.
   * `work` may run more than once (after `SQLITE_BUSY`), so it must only touch the database.
   */
  async transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.writer.runExclusive(async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.dataSource.transaction(work);
        } catch (error) {
          if (!isBusy(error) || attempt > BUSY_RETRIES) throw error;
          this.logger.warn(`database busy, retrying transaction (attempt ${attempt})`);
          await new Promise((wake) => setTimeout(wake, 20 * attempt));
        }
      }
    });
  }

  /** Runs a single write statement outside a transaction, serialized with the transactions. */
  async write<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.writer.runExclusive(() => work(this.dataSource.manager));
  }
}

function isBusy(error: unknown): boolean {
  // better-sqlite3 may report an extended code (SQLITE_BUSY_SNAPSHOT, …).
  const busy = (code: unknown) => typeof code === 'string' && code.startsWith('SQLITE_BUSY');
  return (
    busy((error as { driverError?: { code?: unknown } } | null)?.driverError?.code) || busy((error as { code?: unknown } | null)?.code)
  );
}
