import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { writeManyRows, writeProbes, type Probe } from '#test/support/write-jobs.js';
import { BackgroundWriter } from './background-writer.js';
import { UnitOfWork } from './unit-of-work.js';
import { WriteBehind } from './write-behind.js';

/** The one write-behind mechanism over the background writer, on better-sqlite3 (its thread) and on sqlite3 (the event loop). */
for (const type of ['better-sqlite3', 'sqlite'] as const) {
  describe(`${WriteBehind.name} over ${BackgroundWriter.name} (${type})`, () => {
    let dir: string;
    let dataSource: DataSource;
    let writer: BackgroundWriter;

    const probes = async (): Promise<Record<string, number>> =>
      Object.fromEntries((await dataSource.query<Probe[]>('SELECT k, v FROM probe ORDER BY k')).map((row) => [row.k, Number(row.v)]));
    const behind = (sliceSize = 2) =>
      new WriteBehind<Probe>(writer, {
        name: 'spec',
        flushMs: 60_000,
        sliceSize,
        job: writeProbes,
        key: (probe) => probe.k,
        merge: (held, incoming) => (incoming.v > held.v ? incoming : held),
      });

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'firmledger-write-behind-'));
      const database = join(dir, 'db.sqlite');
      dataSource = await new DataSource({ type, database, enableWAL: true }).initialize();
      await dataSource.query('CREATE TABLE probe (k TEXT PRIMARY KEY, v INTEGER NOT NULL)');
      await dataSource.query('CREATE TABLE bulk (k TEXT NOT NULL, i INTEGER NOT NULL)');
      await dataSource.query('CREATE TABLE gate (closed INTEGER)');
      writer = new BackgroundWriter(dataSource, new UnitOfWork(dataSource), { sqliteSynchronous: 'NORMAL' } as AppConfig);
    });

    after(async () => {
      await writer.onApplicationShutdown();
      await dataSource.destroy();
      await rm(dir, { recursive: true, force: true });
    });

    it(`runs on ${type === 'better-sqlite3' ? 'a thread of its own' : 'the event loop'}`, () => {
      assert.equal(writer.threaded, type === 'better-sqlite3');
    });

    it('holds one value per key, merged, until flushed; then every slice is written', async () => {
      const w = behind();
      w.add({ k: 'a', v: 1 });
      w.add({ k: 'a', v: 3 });
      w.add({ k: 'a', v: 2 });
      w.add({ k: 'b', v: 1 });
      w.add({ k: 'c', v: 1 });
      assert.equal(w.backlog, 3);
      assert.deepEqual(await probes(), {});
      await w.flush();
      assert.equal(w.backlog, 0);
      assert.deepEqual(await probes(), { a: 3, b: 1, c: 1 });
      await w.close();
    });

    it('keeps what a failed slice held, and the slices after it, for the next flush; the slices before stay written', async () => {
      await dataSource.query('DELETE FROM probe');
      await dataSource.query('INSERT INTO gate (closed) VALUES (1)');
      const w = behind(2);
      for (const k of ['d1', 'd2', 'poison', 'e1', 'e2']) w.add({ k, v: 10 });
      await assert.rejects(w.flush(), /refused poison/);
      assert.deepEqual(await probes(), { d1: 10, d2: 10 });
      assert.equal(w.backlog, 3, 'the failed slice and the one after it are held');
      w.add({ k: 'e1', v: 5 });
      w.add({ k: 'e2', v: 20 });
      // The held value of a key stays unless a newer one (here: larger) came in meanwhile.
      await assert.rejects(w.flush(), /refused poison/);
      assert.equal(w.backlog, 3);
      await dataSource.query('DELETE FROM probe');
      await dataSource.query('DELETE FROM gate');
      await w.flush();
      assert.deepEqual(await probes(), { e1: 10, e2: 20, poison: 10 });
      await w.close();
    });

    it('writes by itself after flushMs', async () => {
      await dataSource.query('DELETE FROM probe');
      const w = new WriteBehind<Probe>(writer, {
        name: 'spec',
        flushMs: 20,
        sliceSize: 10,
        job: writeProbes,
        key: (probe) => probe.k,
        merge: (held) => held,
      });
      w.add({ k: 'later', v: 1 });
      for (let i = 0; i < 100 && w.backlog > 0; i++) await new Promise((wake) => setTimeout(wake, 10));
      await w.idle();
      assert.deepEqual(await probes(), { later: 1 });
    });

    if (type === 'better-sqlite3') {
      it('lets the event loop serve other work while a long write runs (no write on the event loop)', async () => {
        let ticks = 0;
        const ticking = setInterval(() => ticks++, 1);
        try {
          const started = Date.now();
          await writer.run(writeManyRows, [{ k: 'bulk', v: 200_000 }]);
          const took = Date.now() - started;
          // The event loop ran the 1 ms interval all along: at least one tick per 20 ms of writing.
          assert.ok(took >= 50, `the write took only ${took} ms: too short to tell`);
          assert.ok(ticks >= took / 20, `${ticks} ticks in ${took} ms`);
        } finally {
          clearInterval(ticking);
        }
        assert.deepEqual(await dataSource.query('SELECT COUNT(*) AS n FROM bulk'), [{ n: 200_000 }]);
      });
    }
  });
}
