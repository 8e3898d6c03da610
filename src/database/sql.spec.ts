import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { bind, nativeConnection, PreparedRead } from './sql.js';

describe(bind.name, () => {
  it('keeps $n placeholders for PostgreSQL', () => {
    assert.deepEqual(bind('postgres', 'SELECT $1, $2, $1', [1, 2]), ['SELECT $1, $2, $1', [1, 2]]);
  });

  for (const type of ['sqlite', 'better-sqlite3'] as const) {
    it(`turns $n into ? and repeats parameters in order of appearance for ${type}`, () => {
      assert.deepEqual(bind(type, 'UPDATE t SET a = CASE WHEN b <= $3 THEN $2 ELSE $1 END WHERE c = $3', ['x', 'y', 'z']), [
        'UPDATE t SET a = CASE WHEN b <= ? THEN ? ELSE ? END WHERE c = ?',
        ['z', 'y', 'x', 'z'],
      ]);
    });
  }

  it('reads multi-digit placeholders whole', () => {
    const parameters = Array.from({ length: 12 }, (_, i) => i + 1);
    assert.deepEqual(bind('sqlite', 'VALUES ($12, $1, $10)', parameters), ['VALUES (?, ?, ?)', [12, 1, 10]]);
  });
});

describe(PreparedRead.name, () => {
  /** A real better-sqlite3 data source in memory with one table `t(n)`. */
  async function memoryDataSource(): Promise<DataSource> {
    const dataSource = await new DataSource({ type: 'better-sqlite3', database: ':memory:' }).initialize();
    await dataSource.query('CREATE TABLE t (n INTEGER NOT NULL)');
    return dataSource;
  }

  it('runs the batched calls of one event-loop turn together, each seeing what was written before it was made', async () => {
    const dataSource = await memoryDataSource();
    try {
      const count = new PreparedRead<{ c: number }>(dataSource, 'SELECT COUNT(*) AS c FROM t WHERE n >= $1', { batched: true });
      const native = nativeConnection(dataSource)!;
      const insert = native.prepare('INSERT INTO t (n) VALUES (?)');
      insert.run(1);
      const first = count.all([0]);
      const second = count.all([2]);
      // Neither has run yet: the batch runs in this turn's check phase.
      let settled = false;
      void first.then(() => (settled = true));
      await Promise.resolve();
      assert.equal(settled, false);
      assert.deepEqual(await Promise.all([first, second]), [[{ c: 1 }], [{ c: 0 }]]);
      insert.run(2);
      assert.deepEqual(await count.all([2]), [{ c: 1 }]);
    } finally {
      await dataSource.destroy();
    }
  });

  it('fails only the call whose statement fails', async () => {
    const dataSource = await memoryDataSource();
    try {
      const read = new PreparedRead<{ n: number }>(dataSource, 'SELECT n FROM t WHERE n = $1', { batched: true });
      const bad = read.all([{ not: 'bindable' }]);
      const good = read.all([1]);
      await assert.rejects(bad);
      assert.deepEqual(await good, []);
    } finally {
      await dataSource.destroy();
    }
  });
});
