import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '#src/platform/database/data-source-options.js';
import { SCHEMA } from '#src/app/schema.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import { BackgroundWriter } from '#src/platform/database/background-writer.js';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { LAST_SEEN_FLUSH_MS, LastSeenWriter } from './last-seen-writer.js';

describe(LastSeenWriter.name, () => {
  let dir: string;
  let dataSource: DataSource;
  let writer: LastSeenWriter;
  let background: BackgroundWriter;

  const lastSeen = async (id: number): Promise<number | null> =>
    (await dataSource.query<{ last_seen_at: number | null }[]>('SELECT last_seen_at FROM device WHERE id = ?', [id]))[0].last_seen_at;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'firmledger-last-seen-'));
    dataSource = await new DataSource(dataSourceOptions({ databasePath: join(dir, 'db.sqlite') }, SCHEMA)).initialize();
    // better-sqlite3: the writes run on the background writer's thread, as in the server.
    background = new BackgroundWriter(dataSource, new UnitOfWork(dataSource), { sqliteSynchronous: 'NORMAL' } as AppConfig);
    await dataSource.query("INSERT INTO tenant (id, name, customer_key, created_at) VALUES (1, 't', 'k', 0)");
    await dataSource.query("INSERT INTO device_key (id, tenant_id, key, device_type, created_at) VALUES (1, 1, 'dk', 'ESP32', 0)");
    for (let id = 1; id <= 450; id++) {
      const mac = `02:00:00:00:${(id >> 8).toString(16).padStart(2, '0')}:${(id & 255).toString(16).padStart(2, '0')}`.toUpperCase();
      await dataSource.query(
        `INSERT INTO device (id, tenant_id, mac, name, firmware_version, device_key_id, device_type, last_seen_at, created_at)
         VALUES (?, 1, ?, 'd', '1.0', 1, 'ESP32', 1000, 0)`,
        [id, mac],
      );
    }
  });

  beforeEach(() => {
    writer = new LastSeenWriter(background);
  });

  after(async () => {
    await background.onApplicationShutdown();
    await dataSource.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes nothing until flushed, then the newest time of each device', async () => {
    writer.seen(1, 5000);
    writer.seen(1, 7000);
    writer.seen(1, 6000);
    writer.seen(2, 5000);
    assert.equal(writer.backlog, 2);
    assert.equal(await lastSeen(1), 1000);
    await writer.flush();
    assert.equal(writer.backlog, 0);
    assert.equal(await lastSeen(1), 7000);
    assert.equal(await lastSeen(2), 5000);
    await writer.onApplicationShutdown();
  });

  it('never moves a last-seen time backwards', async () => {
    writer.seen(3, 9000);
    await writer.flush();
    writer.seen(3, 8000);
    await writer.flush();
    assert.equal(await lastSeen(3), 9000);
    await writer.onApplicationShutdown();
  });

  it('writes more devices than one statement holds, and skips absent ones', async () => {
    const times = new Map<number, number>();
    for (let id = 100; id <= 450; id++) times.set(id, 100_000 + id);
    for (const [id, at] of times) writer.seen(id, at);
    writer.seen(99_999, 100_000);
    await writer.flush();
    for (const id of [100, 299, 300, 301, 450]) assert.equal(await lastSeen(id), times.get(id), `device ${id}`);
    await writer.onApplicationShutdown();
  });

  it(`writes by itself ${LAST_SEEN_FLUSH_MS} ms after the first time it holds`, async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    writer.seen(4, 200_000);
    t.mock.timers.tick(LAST_SEEN_FLUSH_MS - 1);
    await writer.idle();
    assert.equal(await lastSeen(4), 1000);
    t.mock.timers.tick(1);
    await writer.idle();
    assert.equal(await lastSeen(4), 200_000);
    assert.equal(writer.backlog, 0);
  });

  it('writes what is pending at shutdown', async () => {
    writer.seen(5, 300_000);
    await writer.onApplicationShutdown();
    assert.equal(await lastSeen(5), 300_000);
  });

  it('keeps times that arrive while a write is under way', async () => {
    writer.seen(6, 400_000);
    const first = writer.flush();
    writer.seen(6, 500_000);
    writer.seen(7, 500_000);
    await first;
    assert.equal(writer.backlog, 2);
    await writer.flush();
    assert.equal(await lastSeen(6), 500_000);
    assert.equal(await lastSeen(7), 500_000);
    await writer.onApplicationShutdown();
  });
});
