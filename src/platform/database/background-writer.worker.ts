/**
 * The background writer's thread (see background-writer.ts): its own better-sqlite3 connection to
 * the server's database, which runs each job it is sent in one write transaction, so that SQLite's
 * synchronous statements never hold up the event loop that serves requests (WAL: the main
 * connection keeps reading meanwhile).
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { positional } from './sql.js';
import type { SqlRunner, WriteJob } from './write-job.js';

/** What the main thread hands the thread at start. */
export interface WriterThreadData {
  /** The SQLite database file. */
  path: string;
  /** `PRAGMA synchronous` (SQLITE_SYNCHRONOUS). */
  synchronous: string;
  /** How long a write waits for another connection's write lock, milliseconds. */
  busyTimeoutMs: number;
}

/** One job to run: the module and export naming it, and its items. */
export interface WriterRequest {
  id: number;
  module: string;
  name: string;
  items: unknown[];
}

/** The outcome of a {@link WriterRequest}. */
export interface WriterResponse {
  id: number;
  /** Set when the job failed (its transaction rolled back); `code` as the driver gave it. */
  error?: { message: string; code?: string };
}

const data = workerData as WriterThreadData;
const db = new Database(data.path, { timeout: data.busyTimeoutMs });
db.pragma('journal_mode = WAL');
db.pragma(`synchronous = ${data.synchronous}`);

const statements = new Map<string, { run: Database.Statement; order: number[] }>();
const jobs = new Map<string, WriteJob<unknown>>();

/** Statements kept prepared at most; beyond, the cache starts again (statements built per batch size vary). */
const STATEMENT_CACHE = 256;

/** Runs a statement on this thread's connection: its rows when it returns some, else none. */
const sql: SqlRunner = Object.assign(
  (text: string, parameters: readonly unknown[]): Promise<Record<string, unknown>[]> => {
    let prepared = statements.get(text);
    if (prepared === undefined) {
      if (statements.size >= STATEMENT_CACHE) statements.clear();
      const { text: native, order } = positional(text);
      prepared = { run: db.prepare(native), order };
      statements.set(text, prepared);
    }
    const args = prepared.order.map((i) => parameters[i]);
    return Promise.resolve(
      prepared.run.reader ? (prepared.run.all(...args) as Record<string, unknown>[]) : (prepared.run.run(...args), []),
    );
  },
  { engine: 'sqlite' as const },
);

async function job(module: string, name: string): Promise<WriteJob<unknown>> {
  const key = `${module}#${name}`;
  let found = jobs.get(key);
  if (found === undefined) {
    found = ((await import(module)) as Record<string, WriteJob<unknown>>)[name];
    if (found === undefined) throw new Error(`no write job ${name} in ${module}`);
    jobs.set(key, found);
  }
  return found;
}

/** Jobs run one after the other, each in its own transaction. */
let queue = Promise.resolve();
parentPort!.on('message', (request: WriterRequest) => {
  queue = queue.then(async () => {
    const response: WriterResponse = { id: request.id };
    try {
      const write = await job(request.module, request.name);
      db.prepare('BEGIN IMMEDIATE').run();
      try {
        await write.run(sql, request.items);
        db.prepare('COMMIT').run();
      } catch (error) {
        if (db.inTransaction) db.prepare('ROLLBACK').run();
        throw error;
      }
    } catch (error) {
      const e = error as { message?: unknown; code?: unknown };
      response.error = { message: String(e.message ?? error), code: typeof e.code === 'string' ? e.code : undefined };
    }
    parentPort!.postMessage(response);
  });
});
