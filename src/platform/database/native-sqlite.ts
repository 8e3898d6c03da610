import type { DataSource } from 'typeorm';
import { isUniqueViolation } from '#src/platform/common/unique-violation.js';
import { positional } from './sql.js';

/** The part of a better-sqlite3 prepared statement used here. */
interface NativeStatement {
  all(...parameters: unknown[]): unknown[];
  /** Rows as arrays instead of objects (`true`). */
  raw(toggle: boolean): NativeStatement;
  run(...parameters: unknown[]): { changes: number };
}

/** The part of a better-sqlite3 connection used here. */
interface NativeDatabase {
  prepare(sql: string): NativeStatement;
  /** Whether a transaction is open on the connection. */
  readonly inTransaction: boolean;
}

/** What a statement's rows look like: objects by column name, or arrays in select-list order. */
export type RowMode = 'object' | 'array';

/** A statement written with `$1 … $n` placeholders, prepared once; `args` orders the parameters for its `?`s. */
class Prepared {
  readonly statement: NativeStatement;
  private readonly order: number[];

  constructor(db: NativeDatabase, text: string, rowMode: RowMode) {
    const { text: sql, order } = positional(text);
    this.statement = db.prepare(sql);
    if (rowMode === 'array') this.statement.raw(true);
    this.order = order;
  }

  args(parameters: readonly unknown[]): unknown[] {
    return this.order.map((i) => parameters[i]);
  }
}

/** A call waiting for its turn's batch: how to run it and how to settle it. */
interface Waiting {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * The writer lock of the process's write transactions (the unit of work's): a group commit must
 * not run while a transaction of this process is open on the shared connection.
 */
export interface WriterLock {
  isLocked(): boolean;
  runExclusive<T>(work: () => T | Promise<T>): Promise<T>;
}

/**
 * The fast paths on better-sqlite3 (bench/RESULTS.md), and the only code that reaches the
 * driver's own connection under TypeORM (TypeORM keeps exactly one for this driver):
 *
 * - prepared statements, one per statement text and row mode, kept for the connection's life
 *   (skips TypeORM's per-query work: query runner, logging, subscribers);
 * - read batches: the reads asked for in one event-loop turn run back to back in one read
 *   transaction in the turn's check phase ({@link NativeRead.inTurn});
 * - group commit: the single write statements asked for in one turn commit in one write
 *   transaction ({@link writeInTurn});
 * - one transaction helper under both ({@link transaction}).
 *
 * Other drivers have none of this: {@link NativeSqlite.of} gives `undefined` and callers take
 * the portable path (`query`, the unit of work's transactions).
 */
export class NativeSqlite {
  private static readonly byDataSource = new WeakMap<DataSource, NativeSqlite>();

  /** The fast paths of `dataSource`, or `undefined` when it does not run on better-sqlite3. */
  static of(dataSource: DataSource): NativeSqlite | undefined {
    if (dataSource.options.type !== 'better-sqlite3') return undefined;
    let native = NativeSqlite.byDataSource.get(dataSource);
    if (native === undefined) {
      const db = (dataSource.driver as unknown as { databaseConnection: NativeDatabase }).databaseConnection;
      native = new NativeSqlite(db);
      NativeSqlite.byDataSource.set(dataSource, native);
    }
    return native;
  }

  private readonly statements = new Map<string, Prepared>();
  private control: Record<'begin' | 'beginImmediate' | 'commit' | 'rollback', NativeStatement> | undefined;
  private readonly reads = new Map<string, NativeRead<unknown>>();
  private writes: Waiting[] = [];

  private constructor(private readonly db: NativeDatabase) {}

  /** Whether a transaction (this process's, through TypeORM or here) is open on the connection. */
  get inTransaction(): boolean {
    return this.db.inTransaction;
  }

  /**
   * The read statement `text` (`$1 … $n` placeholders) prepared on this connection, once per text
   * and row mode; keep the handle, it is the fast way to run the statement again.
   */
  read<T>(text: string, rowMode: RowMode = 'object'): NativeRead<T> {
    const key = `${rowMode}\u0000${text}`;
    let read = this.reads.get(key) as NativeRead<T> | undefined;
    if (read === undefined) {
      read = new NativeRead<T>(this, this.prepared(text, rowMode));
      this.reads.set(key, read);
    }
    return read;
  }

  /** Runs the write statement `text` once per parameter list, now (inside the open transaction, if any). */
  runEach(text: string, parameterLists: Iterable<readonly unknown[]>): void {
    const prepared = this.prepared(text, 'object');
    for (const parameters of parameterLists) prepared.statement.run(...prepared.args(parameters));
  }

  /**
   * The one transaction helper: runs `body` (synchronous statements on this connection) in a
   * transaction, committed when it returns and rolled back when it throws (the error is thrown
   * on). `'write'` takes the write lock at the start (`BEGIN IMMEDIATE`, so a busy database fails
   * before anything ran), `'read'` a snapshot (`BEGIN`, WAL). When a transaction is open on the
   * connection already, `body` runs inside it and nothing is begun or ended here.
   */
  transaction<T>(mode: 'read' | 'write', body: () => T): T {
    if (this.db.inTransaction) return body();
    const control = (this.control ??= {
      begin: this.db.prepare('BEGIN'),
      beginImmediate: this.db.prepare('BEGIN IMMEDIATE'),
      commit: this.db.prepare('COMMIT'),
      rollback: this.db.prepare('ROLLBACK'),
    });
    (mode === 'write' ? control.beginImmediate : control.begin).run();
    try {
      const result = body();
      control.commit.run();
      return result;
    } catch (error) {
      if (this.db.inTransaction) control.rollback.run();
      throw error;
    }
  }

  /**
   * Group commit of single write statements: `text` (`$1 … $n` placeholders) with `parameters`
   * runs with every other write asked for in this event-loop turn in one write transaction,
   * committed before any of them resolves (one WAL append for many writes). A unique violation
   * fails only its own write (the others commit); any other error rolls the group back and each
   * write is run again on its own through `alone` (the unit of work's retries). The group never
   * runs while a transaction of this process is open on the connection: it waits for `writer`.
   * Resolves with the statement's changed-row count.
   */
  writeInTurn(
    text: string,
    parameters: readonly unknown[],
    writer: WriterLock,
    alone: (work: () => number) => Promise<number>,
  ): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      const work = (): number => {
        const prepared = this.prepared(text, 'object');
        return prepared.statement.run(...prepared.args(parameters)).changes;
      };
      this.writes.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (this.writes.length === 1) setImmediate(() => this.commitWrites(writer, alone));
    });
  }

  private commitWrites(writer: WriterLock, alone: (work: () => number) => Promise<number>): void {
    const batch = this.writes;
    this.writes = [];
    const run = (): void => {
      let outcomes: ({ value: unknown } | { error: unknown })[];
      try {
        outcomes = this.transaction('write', () =>
          batch.map((write) => {
            try {
              return { value: write.work() };
            } catch (error) {
              if (!isUniqueViolation(error) || !this.db.inTransaction) throw error;
              return { error };
            }
          }),
        );
      } catch {
        for (const write of batch) alone(write.work as () => number).then(write.resolve, write.reject);
        return;
      }
      batch.forEach((write, i) => {
        const outcome = outcomes[i];
        if ('value' in outcome) write.resolve(outcome.value);
        else write.reject(outcome.error);
      });
    };
    if (writer.isLocked()) void writer.runExclusive(run);
    else run();
  }

  private prepared(text: string, rowMode: RowMode): Prepared {
    const key = `${rowMode}\u0000${text}`;
    let prepared = this.statements.get(key);
    if (prepared === undefined) {
      prepared = new Prepared(this.db, text, rowMode);
      this.statements.set(key, prepared);
    }
    return prepared;
  }
}

/** A read statement prepared on a {@link NativeSqlite} connection ({@link NativeSqlite.read}). */
export class NativeRead<T> {
  private waiting: Waiting[] = [];

  constructor(
    private readonly native: NativeSqlite,
    private readonly prepared: Prepared,
  ) {}

  /** All rows for `parameters`, now. */
  all(parameters: readonly unknown[]): T[] {
    return this.prepared.statement.all(...this.prepared.args(parameters)) as T[];
  }

  /**
   * Like {@link all}, but run with the other calls made in this event-loop turn, back to back in
   * one read transaction in the turn's check phase (`setImmediate`): one snapshot and one round of
   * locks instead of one per statement, and SQLite's code and pages stay in the CPU caches (on the
   * next-rollout path it cost less than half per request, bench/RESULTS.md). Each call still runs
   * after it was made, so it sees every write committed before; a failing call fails only itself.
   * Inside a transaction open on the connection the calls run in it.
   */
  inTurn(parameters: readonly unknown[]): Promise<T[]> {
    return new Promise<T[]>((resolve, reject) => {
      if (this.waiting.length === 0) setImmediate(() => this.runWaiting());
      this.waiting.push({ work: () => this.all(parameters), resolve: resolve as (value: unknown) => void, reject });
    });
  }

  private runWaiting(): void {
    const batch = this.waiting;
    this.waiting = [];
    let next = 0;
    const settle = (): void => {
      while (next < batch.length) settleWith(batch[next++]);
    };
    if (batch.length < 2) return settle();
    try {
      this.native.transaction('read', settle);
    } catch {
      settle(); // BEGIN failed: the calls run on their own, as single ones do
    }
  }
}

/** Runs a waiting call once, settling its promise with the rows or the error. */
function settleWith(call: Waiting): void {
  try {
    call.resolve(call.work());
  } catch (error) {
    call.reject(error);
  }
}
