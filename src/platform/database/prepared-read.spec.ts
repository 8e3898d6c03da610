import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { NativeSqlite } from './native-sqlite.js';
import { PreparedRead } from './prepared-read.js';

describe(PreparedRead.name, () => {
  /** Runs `use` on a real data source in memory (better-sqlite3 unless named) with one table `t(n)`, closed after. */
  async function withTable(
    use: (dataSource: DataSource) => Promise<void>,
    type: 'better-sqlite3' | 'sqlite' = 'better-sqlite3',
  ): Promise<void> {
    const dataSource = await new DataSource({ type, database: ':memory:' }).initialize();
    try {
      await dataSource.query('CREATE TABLE t (n INTEGER NOT NULL)');
      await use(dataSource);
    } finally {
      await dataSource.destroy();
    }
  }

  it('runs the batched calls of one event-loop turn together, each seeing what was written before it was made', async () => {
    await withTable(async (dataSource) => {
      const count = new PreparedRead<{ c: number }>(dataSource, 'SELECT COUNT(*) AS c FROM t WHERE n >= $1', { batched: true });
      const native = NativeSqlite.of(dataSource)!;
      const insert = (n: number) => native.runEach('INSERT INTO t (n) VALUES ($1)', [[n]]);
      insert(1);
      const first = count.all([0]);
      const second = count.all([2]);
      // Neither has run yet: the batch runs in this turn's check phase.
      let settled = false;
      void first.then(() => (settled = true));
      await Promise.resolve();
      assert.equal(settled, false);
      assert.deepEqual(await Promise.all([first, second]), [[{ c: 1 }], [{ c: 0 }]]);
      insert(2);
      assert.deepEqual(await count.all([2]), [{ c: 1 }]);
    });
  });

  it('fails only the call whose statement fails', async () => {
    await withTable(async (dataSource) => {
      const read = new PreparedRead<{ n: number }>(dataSource, 'SELECT n FROM t WHERE n = $1', { batched: true });
      const bad = read.all([{ not: 'bindable' }]);
      const good = read.all([1]);
      await assert.rejects(bad);
      assert.deepEqual(await good, []);
    });
  });

  it('runs a batch in one read transaction and leaves none open, also when a call fails', async () => {
    await withTable(async (dataSource) => {
      const read = new PreparedRead<{ n: number }>(dataSource, 'SELECT n FROM t WHERE n = $1', { batched: true });
      const native = NativeSqlite.of(dataSource)!;
      native.runEach('INSERT INTO t (n) VALUES ($1)', [[1]]);
      const results = await Promise.allSettled([read.all([1]), read.all([{ not: 'bindable' }]), read.all([1])]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assert.deepEqual((results[2] as PromiseFulfilledResult<unknown>).value, [{ n: 1 }]);
      assert.equal(native.inTransaction, false);
      // The connection takes write transactions as before.
      await dataSource.transaction((manager) => manager.query('INSERT INTO t (n) VALUES (2)'));
      assert.deepEqual(await read.all([2]), [{ n: 2 }]);
    });
  });

  it('runs a batch inside a transaction already open on the connection without ending it', async () => {
    await withTable(async (dataSource) => {
      const read = new PreparedRead<{ c: number }>(dataSource, 'SELECT COUNT(*) AS c FROM t WHERE n >= $1', { batched: true });
      await assert.rejects(
        dataSource.transaction(async (manager) => {
          await manager.query('INSERT INTO t (n) VALUES (5)');
          assert.deepEqual(await Promise.all([read.all([0]), read.all([6])]), [[{ c: 1 }], [{ c: 0 }]]);
          throw new Error('roll back');
        }),
        /roll back/,
      );
      // The transaction's write was rolled back, not committed by the batch.
      assert.deepEqual(await read.all([0]), [{ c: 0 }]);
    });
  });

  describe("rowMode 'array'", () => {
    const text = 'SELECT n * 10 AS tens, n AS ones, $1 AS label FROM t ORDER BY n';

    for (const type of ['better-sqlite3', 'sqlite'] as const) {
      for (const batched of [false, true]) {
        it(`gives rows as arrays in select-list order on ${type}${batched ? ', batched' : ''}`, async () => {
          await withTable(async (dataSource) => {
            await dataSource.query('INSERT INTO t (n) VALUES (1), (2)');
            const read = new PreparedRead<[number, number, string]>(dataSource, text, { batched, rowMode: 'array' });
            assert.deepEqual(await read.all(['x']), [
              [10, 1, 'x'],
              [20, 2, 'x'],
            ]);
          }, type);
        });
      }
    }
  });
});
