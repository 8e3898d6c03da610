import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { post, startTestApp, TEST_ENGINE } from '#test/support/harness.js';

/** SQLite settings (SQLITE_DRIVER, SQLITE_SYNCHRONOUS) and last-seen times written behind. */
describe('database (SQLITE_DRIVER, SQLITE_SYNCHRONOUS, last seen)', () => {
  for (const [env, driver, synchronous] of [
    [{}, 'better-sqlite3', 1],
    [{ SQLITE_DRIVER: 'sqlite3', SQLITE_SYNCHRONOUS: 'FULL' }, 'sqlite', 2],
  ] as const) {
    // SQLite settings: on the PostgreSQL pass there is no SQLite to look at.
    const skip = TEST_ENGINE !== 'sqlite' && 'SQLite only';
    it(`${JSON.stringify(env)}: ${driver}, WAL, synchronous ${synchronous}, and the device flow works`, { skip }, async () => {
      const app = await startTestApp(env);
      try {
        const dataSource = app.server.app.get(DataSource);
        assert.equal(dataSource.options.type, driver);
        assert.deepEqual(await dataSource.query('PRAGMA synchronous'), [{ synchronous }]);
        assert.deepEqual(await dataSource.query('PRAGMA journal_mode'), [{ journal_mode: 'wal' }]);
        const tenant = await app.createTenant();
        const token = await app.login(tenant);
        const body = { mac: 'AC:67:B2:70:00:01', firmware_version: '1.0' };
        assert.deepEqual((await post(`${app.urls.vc}/api/device/register`, body, token)).body, { message: 'Device inserted!' });
        assert.deepEqual((await post(`${app.urls.vc}/api/device/register`, body, token)).body, { message: 'Device exists!' });
      } finally {
        await app.close();
      }
    });
  }

  it('a next-rollout check records the last-seen time, written at the latest when the server closes', async () => {
    const app = await startTestApp();
    const tenant = await app.createTenant();
    const token = await app.login(tenant);
    const mac = 'AC:67:B2:70:00:02';
    await post(`${app.urls.vc}/api/device/register`, { mac, firmware_version: '1.0' }, token);
    app.clock.advance(3600);
    const seenAt = app.clock.now();
    const answer = await post(`${app.urls.vc}/api/device/next/rollout`, { mac, firmware_version: '1.0' }, token);
    assert.equal(answer.status, 200);
    await app.server.close();
    try {
      const [row] = await app.database.query<{ last_seen_at: number | string }>('SELECT last_seen_at FROM device WHERE mac = $1', [mac]);
      assert.equal(Number(row.last_seen_at), seenAt);
    } finally {
      await app.close();
    }
  });
});
