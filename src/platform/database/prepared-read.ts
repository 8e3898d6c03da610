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
 * batched per event-loop turn), elsewhere it runs through `query`. Rows come back as the driver
 * returns them (PostgreSQL `bigint` as text), or as arrays ({@link PreparedReadOptions.rowMode}).
 */
export class PreparedRead<T> {
  /** The statement on better-sqlite3 (prepared at the first call), `null` on other drivers. */
  private native: NativeRead<T> | null | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly text: string,
    private readonly options: PreparedReadOptions = {},
  ) {}

  /** All rows for the parameters. */
  async all(parameters: readonly unknown[]): Promise<T[]> {
    const rowMode = this.options.rowMode ?? 'object';
    const native = (this.native ??= NativeSqlite.of(this.dataSource)?.read<T>(this.text, rowMode) ?? null);
    if (native !== null) return this.options.batched ? native.inTurn(parameters) : native.all(parameters);
    const rows = await query<T[]>(this.dataSource.manager, this.text, parameters);
    return rowMode === 'array' ? rows.map((row) => Object.values(row as object) as T) : rows;
  }
}
