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
interface NativeStatement {
  all(...parameters: unknown[]): unknown[];
}

/**
 * A read-only statement on a hot path, written with `$1 … $n` placeholders. On better-sqlite3
 * it is prepared once on the driver's own connection (TypeORM keeps exactly one) and run
 * directly, which skips TypeORM's per-query work (query runner, logging, subscribers: about a
 * third of the cost of these small statements, bench/RESULTS.md). On other drivers it runs
 * through {@link query}. Rows come back as the driver returns them.
 */
export class PreparedRead<T> {
  private native: { statement: NativeStatement; order: number[] } | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly text: string,
  ) {}

  /** All rows for the parameters. */
  async all(parameters: readonly unknown[]): Promise<T[]> {
    if (this.dataSource.options.type !== 'better-sqlite3') return query<T[]>(this.dataSource.manager, this.text, parameters);
    if (this.native === undefined) {
      const { text, order } = positional(this.text);
      const driver = this.dataSource.driver as unknown as { databaseConnection: { prepare(sql: string): NativeStatement } };
      this.native = { statement: driver.databaseConnection.prepare(text), order };
    }
    return this.native.statement.all(...this.native.order.map((i) => parameters[i])) as T[];
  }
}
