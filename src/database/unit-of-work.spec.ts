import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options.js';
import { NativePrepared } from './sql.js';
import { UnitOfWork } from './unit-of-work.js';

describe(`${UnitOfWork.name}.writeNative (better-sqlite3 group commit)`, () => {
  let dir: string;
  let dataSource: DataSource;
  let unitOfWork: UnitOfWork;
  let insert: NativePrepared;

  const rows = async (): Promise<number[]> =>
    (await dataSource.query<{ timestamp: number }[]>('SELECT timestamp FROM login_nonce ORDER BY timestamp')).map((r) =>
      Number(r.timestamp),
    );
  /** How often a write's work ran (a group that fell back to single writes runs them again). */
  let runs = 0;
  const claim = (timestamp: number) =>
    unitOfWork.writeNative(() => {
      runs++;
      return insert.statement.run(...insert.args([1, timestamp, 0]));
    });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'firmledger-uow-'));
    dataSource = await new DataSource(
      dataSourceOptions({ databasePath: join(dir, 'db.sqlite'), sqliteDriver: 'better-sqlite3' }),
    ).initialize();
    unitOfWork = new UnitOfWork(dataSource);
    insert = new NativePrepared(unitOfWork.native!, 'INSERT INTO login_nonce (device_key_id, timestamp, created_at) VALUES ($1, $2, $3)');
  });

  beforeEach(async () => {
    await dataSource.query('DELETE FROM login_nonce');
    runs = 0;
  });

  after(async () => {
    await dataSource.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  it('commits the writes of one turn together; a unique violation fails only its own write', async () => {
    const results = await Promise.allSettled([claim(1), claim(2), claim(1), claim(3)]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
    );
    assert.match(String((results[2] as PromiseRejectedResult).reason), /UNIQUE|PRIMARY KEY/);
    assert.deepEqual(await rows(), [1, 2, 3]);
    assert.equal(runs, 4, 'one group: each write ran once, none again on its own');
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
    const failing = unitOfWork.writeNative(() => {
      throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
    });
    const results = await Promise.allSettled([claim(20), failing, claim(21)]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(await rows(), [20, 21]);
  });
});
