import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Worker } from 'node:worker_threads';
import { DataSource, type EntityManager } from 'typeorm';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import type { WriterRequest, WriterResponse, WriterThreadData } from './background-writer.worker.js';
import { query } from './sql.js';
import { UnitOfWork } from './unit-of-work.js';
import type { SqlRunner, WriteJob } from './write-job.js';

/** How long the writer thread's connection waits for another connection's write lock, milliseconds. */
const BUSY_TIMEOUT_MS = 5000;

/** A job's failure on the writer thread, with the driver's code (`SQLITE_BUSY`, …). */
export class BackgroundWriteError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * Carries out the writes made behind the requests (offers, last-seen times: see
 * {@link WriteBehind}) where they do not hold requests up (bench/RESULTS.md):
 *
 * - on SQLite (better-sqlite3), on a thread of its own with its own connection to the database
 *   file: SQLite runs statements synchronously, so on the event loop every write would stop
 *   every request while it runs; in WAL mode the main connection keeps reading meanwhile;
 * - on PostgreSQL (and the sqlite3 driver, which is asynchronous already), in a transaction of
 *   the unit of work on the event loop.
 *
 * Each {@link run} is one transaction: it commits as a whole or not at all.
 */
@Injectable()
export class BackgroundWriter implements OnApplicationShutdown {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  private nextId = 1;

  constructor(
    private readonly dataSource: DataSource,
    private readonly unitOfWork: UnitOfWork,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Whether jobs run on the writer thread (better-sqlite3) rather than on the event loop. */
  get threaded(): boolean {
    return this.dataSource.options.type === 'better-sqlite3';
  }

  /**
   * Writes `items` with `job` in one transaction.
   * @throws the job's error (on the writer thread: a {@link BackgroundWriteError}); nothing of it is written.
   */
  async run<I>(job: WriteJob<I>, items: readonly I[]): Promise<void> {
    if (items.length === 0) return;
    if (!this.threaded) {
      await this.unitOfWork.transaction((manager) => job.run(runnerOf(manager), items));
      return;
    }
    // Not while a transaction of the event loop's connection holds SQLite's write lock (UnitOfWork.exclusively).
    await this.unitOfWork.exclusively(
      () =>
        new Promise<void>((resolve, reject) => {
          const worker = this.start();
          const id = this.nextId++;
          this.waiting.set(id, { resolve, reject });
          const request: WriterRequest = { id, module: job.module, name: job.name, items: [...items] };
          worker.postMessage(request);
        }),
    );
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const workerData: WriterThreadData = {
      path: String(this.dataSource.options.database),
      synchronous: this.config.sqliteSynchronous,
      busyTimeoutMs: BUSY_TIMEOUT_MS,
    };
    const worker = new Worker(new URL('./background-writer.worker.js', import.meta.url), { workerData });
    worker.unref();
    worker.on('message', (response: WriterResponse) => {
      const waiting = this.waiting.get(response.id);
      this.waiting.delete(response.id);
      if (response.error) waiting?.reject(new BackgroundWriteError(response.error.message, response.error.code));
      else waiting?.resolve();
    });
    const fail = (error: Error) => {
      this.worker = undefined;
      for (const waiting of this.waiting.values()) waiting.reject(error);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new BackgroundWriteError(`the background writer thread exited (${code})`)));
    this.worker = worker;
    return worker;
  }

  /** Ends the writer thread once the jobs sent to it are done (after the writers behind flushed: they shut down first). */
  async onApplicationShutdown(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    await Promise.allSettled(
      [...this.waiting.values()].map((waiting) => new Promise<void>((done) => Object.assign(waiting, wrap(waiting, done)))),
    );
    this.worker = undefined;
    await worker.terminate();
  }
}

/** A waiting job's callbacks, also calling `done` once it settles. */
function wrap(waiting: { resolve: () => void; reject: (error: Error) => void }, done: () => void) {
  const { resolve, reject } = waiting;
  return {
    resolve: () => {
      resolve();
      done();
    },
    reject: (error: Error) => {
      reject(error);
      done();
    },
  };
}

/** A {@link SqlRunner} over a TypeORM transaction: rows as objects, `UPDATE … RETURNING` too (PostgreSQL answers `[rows, count]`). */
function runnerOf(manager: EntityManager): SqlRunner {
  const run = async (text: string, parameters: readonly unknown[]): Promise<Record<string, unknown>[]> => {
    const result = await query<unknown>(manager, text, parameters);
    const rows =
      Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number' ? result[0] : result;
    return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
  };
  return Object.assign(run, { engine: manager.connection.options.type === 'postgres' ? ('postgres' as const) : ('sqlite' as const) });
}
