import type { DataSource, EntityManager } from 'typeorm';

/** A statement for drivers that bind by position only: `?` placeholders and their parameters. */
export interface Positional {
  text: string;
  /** For each `?`, the index (0-based) of its parameter. */
  order: number[];
}

const positionalCache = new Map<string, Positional>();

/** `$1 … $n` → `?` with the parameter order; computed once per statement text. */
export function positional(text: string): Positional {
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

/** Tables whose planner statistics a bulk write refreshes ({@link refreshStatistics}). */
export type AnalyzedTable = 'device' | 'group_member';

/**
 * Refreshes PostgreSQL's planner statistics of `tables` (`ANALYZE`, a sample of each table: about a
 * second at a million rows) after a bulk write. Until autovacuum gets to them, a table a million
 * rows larger than its statistics say gets plans made for a small one (a page of fifty group members
 * took 1.7 s instead of 3 ms). SQLite plans without statistics and is left as it is.
 */
export async function refreshStatistics(manager: EntityManager, tables: readonly AnalyzedTable[]): Promise<void> {
  if (manager.connection.options.type !== 'postgres' || tables.length === 0) return;
  await manager.query(`ANALYZE ${tables.join(', ')}`);
}
