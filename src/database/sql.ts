import type { DataSource, EntityManager } from 'typeorm';

/** A statement for drivers that bind by position only: `?` placeholders and their parameters. */
interface Positional {
  text: string;
  /** For each `?`, the index (0-based) of its parameter. */
  order: number[];
}

const positionalCache = new Map<string, Positional>();

/** `$1 … $n` → `?` with the parameter order; computed once per statement text. */
function positional(text: string): Positional {
  let statement = positionalCache.get(text);
  if (statement === undefined) {
    const order: number[] = [];
    statement = {
      text: text.replace(/\$(\d+)/g, (_, n: string) => {
        order.push(Number(n) - 1);
        return '?';
      }),
      order,
    };
    positionalCache.set(text, statement);
  }
  return statement;
}

/** Whether a data source type is one of the SQLite drivers (`sqlite3` or better-sqlite3). */
export const isSqlite = (type: DataSource['options']['type']): boolean => type === 'sqlite' || type === 'better-sqlite3';

/**
 * The statement and parameters as the data source's driver binds them. Raw SQL in this code base
 * is written with numbered placeholders `$1 … $n` (PostgreSQL); better-sqlite3 binds only
 * anonymous `?` placeholders by position, so for SQLite drivers each `$n` becomes `?` and the
 * parameters are repeated in order of appearance (a `$n` may occur more than once).
 * Placeholders must not occur in string literals.
 */
export function bind(type: DataSource['options']['type'], text: string, parameters: readonly unknown[]): [string, unknown[]] {
  if (!isSqlite(type)) return [text, [...parameters]];
  const statement = positional(text);
  return [statement.text, statement.order.map((i) => parameters[i])];
}

/**
 * Runs raw SQL written with `$1 … $n` placeholders (see {@link bind}) on `manager` (inside its
 * transaction, if any). Rows come back as the driver returns them: SQLite integers as numbers,
 * PostgreSQL `bigint` as text.
 */
export function query<T>(manager: EntityManager, text: string, parameters: readonly unknown[] = []): Promise<T> {
  const [statement, values] = bind(manager.connection.options.type, text, parameters);
  return manager.query<T>(statement, values);
}

/** The part of a better-sqlite3 prepared statement used here. */
export interface NativeStatement {
  all(...parameters: unknown[]): unknown[];
  /** Rows as arrays instead of objects (`true`). */
  raw(toggle: boolean): NativeStatement;
  run(...parameters: unknown[]): { changes: number };
}

/** The part of a better-sqlite3 connection used here. */
export interface NativeDatabase {
  prepare(sql: string): NativeStatement;
  /** Whether a transaction is open on the connection. */
  readonly inTransaction: boolean;
}

/**
 * The driver's own connection when the data source runs on better-sqlite3 (TypeORM keeps
 * exactly one), else `undefined`.
 */
export function nativeConnection(dataSource: DataSource): NativeDatabase | undefined {
  if (dataSource.options.type !== 'better-sqlite3') return undefined;
  return (dataSource.driver as unknown as { databaseConnection: NativeDatabase }).databaseConnection;
}

/**
 * A statement written with `$1 … $n` placeholders, prepared once on a better-sqlite3
 * connection; `args` binds parameters in the order of the `?` that replaced them.
 */
export class NativePrepared {
  readonly statement: NativeStatement;
  private readonly order: number[];

  constructor(db: NativeDatabase, text: string) {
    const statement = positional(text);
    this.statement = db.prepare(statement.text);
    this.order = statement.order;
  }

  args(parameters: readonly unknown[]): unknown[] {
    return this.order.map((i) => parameters[i]);
  }
}

/** Options of a {@link PreparedRead}. */
export interface PreparedReadOptions {
  /**
   * On better-sqlite3, run the calls made during one event-loop turn together, back to back and
   * in one read transaction, in the turn's check phase (`setImmediate`), instead of each between
   * the HTTP work of its request. Each call still runs its own statement after it was made, so
   * it sees every write committed before; it waits one turn longer. Running a statement for many
   * requests in a row keeps SQLite's code and pages in the CPU caches: on the next-rollout path
   * it cost less than half per request (bench/RESULTS.md). Other drivers are asynchronous
   * already; this is ignored.
   */
  batched?: boolean;
  /**
   * Rows as arrays of the selected columns, in the order of the select list, instead of objects
   * (better-sqlite3's raw mode; other drivers' objects are turned into arrays, so column names
   * must be distinct). Building an object per row is a large part of a small statement's cost
   * on better-sqlite3.
   */
  rowMode?: 'array';
}

/** A call waiting for its batch: parameters and how to settle it. */
type Waiting<T> = [parameters: readonly unknown[], resolve: (rows: T[]) => void, reject: (error: unknown) => void];

/**
 * A read-only statement on a hot path, written with `$1 … $n` placeholders. On better-sqlite3
 * it is prepared once on the driver's own connection (TypeORM keeps exactly one) and run
 * directly, which skips TypeORM's per-query work (query runner, logging, subscribers: about a
 * third of the cost of these small statements, bench/RESULTS.md). On other drivers it runs
 * through {@link query}. Rows come back as the driver returns them, or as arrays
 * ({@link PreparedReadOptions.rowMode}).
 */
export class PreparedRead<T> {
  private native: NativePrepared | undefined;
  private waiting: Waiting<T>[] = [];
  private readTransaction: Record<'begin' | 'commit' | 'rollback', NativeStatement> | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly text: string,
    private readonly options: PreparedReadOptions = {},
  ) {}

  /** All rows for the parameters. */
  async all(parameters: readonly unknown[]): Promise<T[]> {
    if (this.dataSource.options.type !== 'better-sqlite3') {
      const rows = await query<T[]>(this.dataSource.manager, this.text, parameters);
      return this.options.rowMode === 'array' ? rows.map((row) => Object.values(row as object) as T) : rows;
    }
    if (!this.options.batched) return this.run(parameters);
    return new Promise((resolve, reject) => {
      if (this.waiting.length === 0) setImmediate(() => this.runWaiting());
      this.waiting.push([parameters, resolve, reject]);
    });
  }

  private run(parameters: readonly unknown[]): T[] {
    if (this.native === undefined) {
      this.native = new NativePrepared(nativeConnection(this.dataSource)!, this.text);
      if (this.options.rowMode === 'array') this.native.statement.raw(true);
    }
    return this.native.statement.all(...this.native.args(parameters)) as T[];
  }

  private runWaiting(): void {
    const batch = this.waiting;
    this.waiting = [];
    const ended = this.beginBatch(batch.length);
    try {
      for (const [parameters, resolve, reject] of batch) {
        try {
          resolve(this.run(parameters));
        } catch (error) {
          reject(error);
        }
      }
    } finally {
      ended();
    }
  }

  /**
   * Opens one read transaction for a batch of `size` calls (WAL: one snapshot and one round of
   * locks instead of one per statement), unless a transaction of this process is open on the
   * connection, which the calls then run in, as unbatched ones would. Returns what ends it. The
   * calls were all made before it begins, so each still sees every write committed before it.
   */
  private beginBatch(size: number): () => void {
    const db = nativeConnection(this.dataSource)!;
    if (size < 2 || db.inTransaction) return () => undefined;
    const statements = (this.readTransaction ??= {
      begin: db.prepare('BEGIN'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
    });
    try {
      statements.begin.run();
    } catch {
      return () => undefined; // the calls run on their own, as unbatched ones would
    }
    return () => {
      if (!db.inTransaction) return;
      try {
        statements.commit.run();
      } catch {
        statements.rollback.run();
      }
    };
  }
}
