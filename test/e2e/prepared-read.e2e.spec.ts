import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { SCHEMA } from '#src/app/schema.js';
import { dataSourceOptions } from '#src/platform/database/data-source-options.js';
import { PreparedRead } from '#src/platform/database/prepared-read.js';
import { query } from '#src/platform/database/sql.js';
import { createTestDatabase, TEST_ENGINE, type TestDatabase } from '#test/support/harness.js';

/**
 * The hot-path reads ({@link PreparedRead}) on the pass's engine, with the app's data source and
 * migrations: the same rows as a plain query, many at once over the pool, and a failed call does
 * not spoil the next one. On PostgreSQL each is a named statement (prepared once per connection).
 */
describe(`PreparedRead on the app's data source (${TEST_ENGINE})`, () => {
  let database: TestDatabase;
  let db: DataSource;

  before(async () => {
    database = await createTestDatabase();
    db = await new DataSource(
      dataSourceOptions({ databasePath: join(database.dataDir, 'firmledger.sqlite'), databaseUrl: database.env.DATABASE_URL }, SCHEMA),
    ).initialize();
    for (let i = 1; i <= 60; i++) {
      await query(db.manager, `INSERT INTO tenant (id, name, customer_key, created_at) VALUES ($1, $2, $3, $4)`, [
        i,
        `tenant-${i}`,
        `key-${i}`,
        1_700_000_000_000 + i,
      ]);
    }
  });

  after(async () => {
    await db?.destroy();
    await database?.drop();
  });

  const TEXT = 'SELECT id, name, created_at FROM tenant WHERE id >= $1 AND name <> $2 ORDER BY id LIMIT 3';

  it('answers what a plain query answers, as objects and as arrays', async () => {
    const objects = new PreparedRead<Record<string, unknown>>(db, TEXT);
    const arrays = new PreparedRead<unknown[]>(db, TEXT, { rowMode: 'array' });
    for (const parameters of [
      [1, 'tenant-2'],
      [58, 'x'],
      [61, 'x'],
    ]) {
      const plain = await query<Record<string, unknown>[]>(db.manager, TEXT, parameters);
      assert.deepEqual(await objects.all(parameters), plain);
      assert.deepEqual(
        await arrays.all(parameters),
        plain.map((row) => [row['id'], row['name'], row['created_at']]),
      );
    }
  });

  it('answers each of 200 concurrent calls with its own rows, over several pooled connections', async () => {
    const read = new PreparedRead<unknown[]>(db, 'SELECT name FROM tenant WHERE id = $1', { rowMode: 'array', batched: true });
    const ids = Array.from({ length: 200 }, (_, i) => (i % 60) + 1);
    const answers = await Promise.all(ids.map((id) => read.all([id])));
    assert.deepEqual(
      answers,
      ids.map((id) => [[`tenant-${id}`]]),
    );
  });

  it('rejects a call the database refuses and answers the next one', async () => {
    // A run-time error on each engine: text that is not an integer (PostgreSQL), not JSON (SQLite).
    const text = TEST_ENGINE === 'postgres' ? 'SELECT CAST($1 AS integer) + 1 AS n' : "SELECT json_extract(json($1), '$') + 1 AS n";
    const read = new PreparedRead<{ n: unknown }>(db, text);
    await assert.rejects(read.all(['not a number']));
    assert.equal(Number((await read.all([41]))[0].n), 42);
  });

  it('is a named statement on PostgreSQL: a connection that ran it holds it prepared', { skip: TEST_ENGINE !== 'postgres' }, async () => {
    const text = 'SELECT COUNT(*) AS n FROM tenant WHERE id <= $1';
    const read = new PreparedRead<{ n: unknown }>(db, text);
    const pool = (db.driver as unknown as { master: import('pg').Pool }).master;
    assert.equal(Number((await read.all([10]))[0].n), 10);
    const prepared = new Set<string>();
    const clients = await Promise.all(Array.from({ length: pool.totalCount }, () => pool.connect()));
    try {
      for (const c of clients) {
        const { rows } = await c.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements');
        for (const row of rows) prepared.add(row.statement);
      }
    } finally {
      for (const c of clients) c.release();
    }
    assert.ok(prepared.has(text), `one of the pool's connections has it prepared: ${[...prepared].join(' | ')}`);
  });
});
