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

const isSqlite = (type: DataSource['options']['type']): boolean => type === 'sqlite' || type === 'better-sqlite3';

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

/**
 * A read-only statement on a hot path, written with `$1 … $n` placeholders. On better-sqlite3
 * it is prepared once on the driver's own connection (TypeORM keeps exactly one) and run
 * directly, which skips TypeORM's per-query work (query runner, logging, subscribers: about a
 * third of the cost of these small statements, bench/RESULTS.md). On other drivers it runs
 * through {@link query}. Rows come back as the driver returns them.
 */
export class PreparedRead<T> {
  private native: NativePrepared | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly text: string,
  ) {}

  /** All rows for the parameters. */
  async all(parameters: readonly unknown[]): Promise<T[]> {
    if (this.dataSource.options.type !== 'better-sqlite3') return query<T[]>(this.dataSource.manager, this.text, parameters);
    this.native ??= new NativePrepared(nativeConnection(this.dataSource)!, this.text);
    return this.native.statement.all(...this.native.args(parameters)) as T[];
  }
}
