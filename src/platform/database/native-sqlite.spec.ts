import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '#src/platform/database/data-source-options.js';
import { SCHEMA } from '#src/app/schema.js';
import { NativeSqlite } from './native-sqlite.js';
import { UnitOfWork } from './unit-of-work.js';

const INSERT = 'INSERT INTO login_nonce (device_key_id, timestamp, created_at) VALUES ($1, $2, $3)';

describe('better-sqlite3 fast paths', () => {
  let dir: string;
  let dataSource: DataSource;
  let unitOfWork: UnitOfWork;
  let native: NativeSqlite;

  const rows = async (): Promise<number[]> =>
    (await dataSource.query<{ timestamp: number }[]>('SELECT timestamp FROM login_nonce ORDER BY timestamp')).map((r) =>
      Number(r.timestamp),
    );
  const claim = (timestamp: number) => unitOfWork.writeStatement(INSERT, [1, timestamp, 0]);

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'firmledger-native-'));
    dataSource = await new DataSource(
      dataSourceOptions({ databasePath: join(dir, 'db.sqlite'), sqliteDriver: 'better-sqlite3' }, SCHEMA),
    ).initialize();
    unitOfWork = new UnitOfWork(dataSource);
    native = NativeSqlite.of(dataSource)!;
  });

  beforeEach(async () => {
    await dataSource.query('DELETE FROM login_nonce');
  });

  after(async () => {
    await dataSource.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  it('is there on better-sqlite3 only', async () => {
    assert.ok(NativeSqlite.of(dataSource));
    assert.equal(NativeSqlite.of(dataSource), native, 'one per data source');
    const other = await new DataSource({ type: 'sqlite', database: ':memory:' }).initialize();
    try {
      assert.equal(NativeSqlite.of(other), undefined);
    } finally {
      await other.destroy();
    }
  });

  describe(`${UnitOfWork.name}.writeStatement (group commit)`, () => {
    it('commits the writes of one turn together; a unique violation fails only its own write', async () => {
      const results = await Promise.allSettled([claim(1), claim(2), claim(1), claim(3)]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
      );
      assert.match(String((results[2] as PromiseRejectedResult).reason), /UNIQUE|PRIMARY KEY/);
      assert.deepEqual(await rows(), [1, 2, 3]);
    });

    it('waits for a TypeORM transaction that is open on the shared connection', async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let inserted = false;
      const transaction = unitOfWork.transaction(async (manager) => {
        await manager.query('INSERT INTO login_nonce (device_key_id, timestamp, created_at) VALUES (1, 10, 0)');
        await held;
        await manager.query('DELETE FROM login_nonce WHERE timestamp = 10');
      });
      const write = claim(11).then(() => (inserted = true));
      await new Promise((wake) => setTimeout(wake, 20));
      assert.equal(inserted, false, 'not inside the open transaction');
      release();
      await Promise.all([transaction, write]);
      assert.deepEqual(await rows(), [11]);
    });

    it('runs each write again on its own when the group fails for another reason', async () => {
      const failing = unitOfWork.writeStatement('INSERT INTO no_such_table (n) VALUES ($1)', [1]);
      const results = await Promise.allSettled([claim(20), failing, claim(21)]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assert.match(String((results[1] as PromiseRejectedResult).reason), /no such table/);
      assert.deepEqual(await rows(), [20, 21]);
      assert.equal(native.inTransaction, false);
    });
  });

  describe(`${NativeSqlite.name}.transaction`, () => {
    it('commits what the body wrote when it returns', () => {
      const result = native.transaction('write', () => {
        native.runEach(INSERT, [
          [1, 30, 0],
          [1, 31, 0],
        ]);
        return 'done';
      });
      assert.equal(result, 'done');
      assert.equal(native.inTransaction, false);
      assert.deepEqual(native.read<{ n: number }>('SELECT COUNT(*) AS n FROM login_nonce WHERE timestamp >= $1').all([30]), [{ n: 2 }]);
    });

    it('rolls everything back when the body throws, and throws the error on', () => {
      assert.throws(
        () =>
          native.transaction('write', () => {
            native.runEach(INSERT, [[1, 40, 0]]);
            throw new Error('changed my mind');
          }),
        /changed my mind/,
      );
      assert.equal(native.inTransaction, false);
      assert.deepEqual(native.read('SELECT timestamp FROM login_nonce').all([]), []);
    });

    it('runs inside a transaction already open and leaves ending it to its owner', async () => {
      await assert.rejects(
        unitOfWork.transaction(async () => {
          native.transaction('write', () => native.runEach(INSERT, [[1, 50, 0]]));
          assert.equal(native.inTransaction, true, 'still open after the helper returned');
          throw new Error('owner rolls back');
        }),
        /owner rolls back/,
      );
      assert.deepEqual(await rows(), []);
    });
  });
});
