import { Injectable, Logger } from '@nestjs/common';
import { Mutex } from 'async-mutex';
import { DataSource, EntityManager } from 'typeorm';
import { NativeSqlite } from './native-sqlite.js';
import { query } from './sql.js';

const RETRIES = 5;

/**
 * Runs write transactions on either engine.
 *
 * - SQLite has one writer and TypeORM shares a single connection for it, so transactions of
 *   this process are serialized here instead of interleaving on that connection; a transaction
 *   that loses a race with another process (`SQLITE_BUSY`) is run again from the start.
 * - PostgreSQL runs each transaction on its own pooled connection, concurrently, at READ
 *   COMMITTED: unique constraints decide races between instances (callers catch the unique
 *   violation), and what must have one writer at a time across instances (the ledger head)
 *   takes {@link lockAcrossInstances}. A transaction PostgreSQL aborts as a deadlock victim or
 *   a serialization failure (40P01, 40001) is run again from the start.
 */
@Injectable()
export class UnitOfWork {
  private readonly logger = new Logger(UnitOfWork.name);
  private readonly writer = new Mutex();
  private readonly postgres: boolean;

  constructor(private readonly dataSource: DataSource) {
    this.postgres = dataSource.options.type === 'postgres';
  }

  /**
   * Runs `work` in one transaction: everything it writes commits together or not at all.
   * What `work` left for the end ({@link beforeCommit}) runs after it, in order, before the commit.
   * `work` may run more than once (after `SQLITE_BUSY` or a PostgreSQL deadlock), so it must
   * only touch the database, through `manager`.
   */
  async transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const whole = async (manager: EntityManager): Promise<T> => {
      const last: Array<() => Promise<void>> = [];
      committing.set(manager, last);
      const result = await work(manager);
      for (let next = last.shift(); next; next = last.shift()) await next();
      committing.delete(manager);
      return result;
    };
    if (this.postgres) return this.retrying(() => this.dataSource.transaction('READ COMMITTED', whole));
    return this.writer.runExclusive(() => this.retrying(() => this.dataSource.transaction(whole)));
  }

  /**
   * Runs one write statement `text` (`$1 … $n` placeholders) outside a transaction; a unique
   * violation rejects it like any error. On better-sqlite3 the statements of one event-loop turn
   * are group-committed ({@link NativeSqlite.writeInTurn}: one commit for many, e.g. single-device
   * logins in a burst); elsewhere it is {@link write} with {@link query}.
   */
  async writeStatement(text: string, parameters: readonly unknown[]): Promise<void> {
    const native = NativeSqlite.of(this.dataSource);
    if (native !== undefined) {
      await native.writeInTurn(text, parameters, this.writer, (work) =>
        this.writer.runExclusive(() => this.retrying(() => Promise.resolve().then(work))),
      );
      return;
    }
    await this.write((manager) => query(manager, text, parameters));
  }

  /**
   * Runs `work`, a write on another connection of this process (the background writer's thread,
   * {@link BackgroundWriter}), while no transaction of this process runs on SQLite. SQLite has one
   * write lock per database: without this, a transaction here and a write there would wait for
   * each other inside SQLite's busy handler, and a wait on the main connection stops the event
   * loop. On PostgreSQL `work` just runs.
   */
  async exclusively<T>(work: () => Promise<T>): Promise<T> {
    if (this.postgres) return work();
    return this.writer.runExclusive(work);
  }

  /** Runs a single write statement outside a transaction (serialized with the transactions on SQLite). */
  async write<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (this.postgres) return work(this.dataSource.manager);
    return this.writer.runExclusive(() => work(this.dataSource.manager));
  }

  private async retrying<T>(attempt: () => Promise<T>): Promise<T> {
    for (let tries = 1; ; tries++) {
      try {
        return await attempt();
      } catch (error) {
        const code = errorCode(error);
        // better-sqlite3 may report an extended code (SQLITE_BUSY_SNAPSHOT, …).
        const retryable = code !== undefined && (RETRYABLE.has(code) || code.startsWith('SQLITE_BUSY'));
        if (!retryable || tries > RETRIES) throw error;
        this.logger.warn(`transaction lost a race (${code}), retrying (attempt ${tries})`);
        await new Promise((wake) => setTimeout(wake, (10 + Math.random() * 20) * tries));
      }
    }
  }
}

/** Work left for the end of each running {@link UnitOfWork.transaction}, by its manager. */
const committing = new WeakMap<EntityManager, Array<() => Promise<void>>>();

/**
 * Inside a {@link UnitOfWork.transaction}: runs `last` after the transaction's work, just before
 * its commit (in the order given; `last` may leave more for the end), e.g. to take a lock every
 * instance waits for only then. A failure of `last` rolls the transaction back.
 * @returns `false`, running nothing, when `manager` is not that of a running unit-of-work transaction.
 */
export function beforeCommit(manager: EntityManager, last: () => Promise<void>): boolean {
  const queue = committing.get(manager);
  if (!queue) return false;
  queue.push(last);
  return true;
}

/** PostgreSQL serialization failure and deadlock victim; SQLite busy (any extended code) is checked apart. */
const RETRYABLE = new Set(['40001', '40P01']);

/** Advisory lock keys, one per resource that needs a single writer across instances. */
export const LockKey = {
  /** The ledger head: appends read the previous hash and write the next entry. */
  ledger: 0x66_6c_6c_65_64_67, // "flledg"
  /** TUF metadata: one signer at a time brings a repository up to date. */
  tuf: 0x66_6c_74_75_66, // "fltuf"
} as const;

/**
 * Inside a {@link UnitOfWork.transaction}: waits until no other transaction, in this or any
 * other instance, holds `key`, and holds it until this transaction ends. On PostgreSQL this is
 * `pg_advisory_xact_lock`; on SQLite write transactions are serialized already (one writer),
 * so there is nothing to take.
 */
export async function lockAcrossInstances(manager: EntityManager, key: number): Promise<void> {
  if (manager.connection.options.type !== 'postgres') return;
  await manager.query('SELECT pg_advisory_xact_lock($1)', [key]);
}

function errorCode(error: unknown): string | undefined {
  const e = error as { code?: unknown; driverError?: { code?: unknown } } | null;
  const code = e?.driverError?.code ?? e?.code;
  return typeof code === 'string' ? code : undefined;
}
