/**
 * Runs one statement (`$1 … $n` placeholders) inside the job's transaction and answers its rows
 * (those of `RETURNING`, too), whatever the engine; `engine` says which, for the few statements
 * whose text differs.
 */
export interface SqlRunner {
  (text: string, parameters: readonly unknown[]): Promise<Record<string, unknown>[]>;
  readonly engine: 'sqlite' | 'postgres';
}

/**
 * A write the {@link BackgroundWriter} carries out: `run` writes `items` through `sql` in one
 * transaction, on whichever connection runs it (a worker thread's own SQLite connection, or a
 * pooled PostgreSQL one), so it may only touch the database. Declared once, at the top level of
 * its module, with {@link defineWriteJob}: the worker thread imports that module to find it.
 */
export interface WriteJob<I> {
  /** The module that exports it (`import.meta.url`). */
  readonly module: string;
  /** Its export name in that module. */
  readonly name: string;
  run(sql: SqlRunner, items: readonly I[]): Promise<void>;
}

/**
 * Declares a {@link WriteJob}: call it at the top level of `module` (`import.meta.url`) and export
 * the result as `name`.
 */
export function defineWriteJob<I>(module: string, name: string, run: WriteJob<I>['run']): WriteJob<I> {
  return { module, name, run };
}
