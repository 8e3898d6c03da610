import { Injectable, Logger } from '@nestjs/common';
import { Mutex } from 'async-mutex';
import { DataSource, EntityManager } from 'typeorm';
import { isUniqueViolation } from '#src/common/unique-violation.js';
import { nativeConnection, type NativeDatabase, type NativeStatement } from './sql.js';

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
   * `work` may run more than once (after `SQLITE_BUSY` or a PostgreSQL deadlock), so it must
   * only touch the database, through `manager`.
   */
  async transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (this.postgres) return this.retrying(() => this.dataSource.transaction('READ COMMITTED', work));
    return this.writer.runExclusive(() => this.retrying(() => this.dataSource.transaction(work)));
  }

  /** The better-sqlite3 connection, for {@link writeNative}; `undefined` on other drivers. */
  get native(): NativeDatabase | undefined {
    return nativeConnection(this.dataSource);
  }

  /**
   * better-sqlite3 only (see {@link native}): runs `work`, one synchronous write statement on the
   * driver's connection, with group commit. Every such write asked for in one turn of the event
   * loop runs in one transaction, committed before any of them resolves: one commit (WAL append)
   * for many logins instead of one each. A unique violation fails only its own statement (the
   * others commit); any other error rolls the group back and each write is run again on its own.
   * TypeORM shares the connection, so the group never runs while a transaction of this process is
   * open on it (it takes the writer lock's turn if one is). `work` may run more than once.
   */
  writeNative<T>(work: (db: NativeDatabase) => T): Promise<T> {
    if (this.native === undefined) return Promise.reject(new Error('writeNative needs the better-sqlite3 driver'));
    return new Promise<T>((resolve, reject) => {
      this.group.push({ work, resolve, reject } as GroupedWrite);
      if (this.group.length === 1) setImmediate(() => this.commitGroup());
    });
  }

  private group: GroupedWrite[] = [];
  private groupStatements: Record<'begin' | 'commit' | 'rollback', NativeStatement> | undefined;

  private commitGroup(): void {
    const batch = this.group;
    this.group = [];
    // Whatever fails unexpectedly (preparing, rolling back) fails the group's writes, never the process.
    const run = (): void => {
      try {
        this.runGroup(batch);
      } catch (error) {
        for (const write of batch) write.reject(error);
      }
    };
    if (this.writer.isLocked()) void this.writer.runExclusive(run);
    else run();
  }

  private runGroup(batch: GroupedWrite[]): void {
    const db = this.native!;
    const statements = (this.groupStatements ??= {
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
    });
    const outcomes: ({ value: unknown } | { error: unknown })[] = [];
    try {
      statements.begin.run();
      for (const write of batch) {
        try {
          outcomes.push({ value: write.work(db) });
        } catch (error) {
          if (!isUniqueViolation(error) || !db.inTransaction) throw error;
          outcomes.push({ error });
        }
      }
      statements.commit.run();
    } catch {
      if (db.inTransaction) statements.rollback.run();
      // Each on its own, with the retries of a transaction (SQLITE_BUSY), under the writer lock.
      for (const write of batch) {
        this.writer.runExclusive(() => this.retrying(() => Promise.resolve().then(() => write.work(db)))).then(write.resolve, write.reject);
      }
      return;
    }
    batch.forEach((write, i) => {
      const outcome = outcomes[i];
      if ('value' in outcome) write.resolve(outcome.value);
      else write.reject(outcome.error);
    });
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

/** A write waiting for its group's commit ({@link UnitOfWork.writeNative}). */
interface GroupedWrite {
  work: (db: NativeDatabase) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
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
