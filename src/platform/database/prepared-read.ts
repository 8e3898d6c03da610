import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import { NativeSqlite, type NativeRead } from './native-sqlite.js';
import { query } from './sql.js';

/** Options of a {@link PreparedRead}. */
export interface PreparedReadOptions {
  /**
   * On better-sqlite3, run the calls made during one event-loop turn together, in one read
   * transaction ({@link NativeRead.inTurn}); each waits one turn longer. Other drivers are
   * asynchronous already; this is ignored.
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

/**
 * A read-only statement on a hot path, written with `$1 … $n` placeholders, on any driver: on
 * better-sqlite3 it takes the native fast path ({@link NativeSqlite}: prepared once, optionally
 * batched per event-loop turn); on PostgreSQL it is a named statement, which each pooled connection
 * parses and plans once and then executes with new parameters (planning a next-rollout read cost
 * more than executing it: 0.56 against 0.15 ms, docs/scaling.md); elsewhere it runs through `query`.
 * Rows come back as the driver returns them (PostgreSQL `bigint` as text), or as arrays
 * ({@link PreparedReadOptions.rowMode}).
 */
export class PreparedRead<T> {
  /** The statement on better-sqlite3 (prepared at the first call), `null` on other drivers. */
  private native: NativeRead<T> | null | undefined;
  /** Name of the statement on PostgreSQL: the same text always has the same name. */
  private readonly name: string;

  constructor(
    private readonly dataSource: DataSource,
    private readonly text: string,
    private readonly options: PreparedReadOptions = {},
  ) {
    this.name = `fl_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
  }

  /** All rows for the parameters. */
  async all(parameters: readonly unknown[]): Promise<T[]> {
    const rowMode = this.options.rowMode ?? 'object';
    const native = (this.native ??= NativeSqlite.of(this.dataSource)?.read<T>(this.text, rowMode) ?? null);
    if (native !== null) return this.options.batched ? native.inTurn(parameters) : native.all(parameters);
    if (this.dataSource.options.type === 'postgres') {
      // TypeORM's pool (its driver's `master`): a pooled connection, as TypeORM's own queries take.
      const pool = (this.dataSource.driver as unknown as { master: Pool }).master;
      const values = [...parameters];
      const result =
        rowMode === 'array'
          ? await pool.query<T & unknown[]>({ name: this.name, text: this.text, values, rowMode: 'array' })
          : await pool.query<T & object>({ name: this.name, text: this.text, values });
      return result.rows;
    }
    const rows = await query<T[]>(this.dataSource.manager, this.text, parameters);
    return rowMode === 'array' ? rows.map((row) => Object.values(row as object) as T) : rows;
  }
}
