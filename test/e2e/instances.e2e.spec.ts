import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LedgerService } from '#src/domain/ledger/ledger.service.js';
import type { RunningServer } from '#src/app/server.js';
import { request, startInstance, startTestApp, TEST_ENGINE, type TestApp } from '#test/support/harness.js';

// Two instances in this process on one database of the engine under test (docs/decisions.md §6, §7):
// racing duplicates are decided by the database, and the ledger chain stays whole.

describe(`two instances on one ${TEST_ENGINE} database`, () => {
  let app: TestApp;
  let second: RunningServer;
  let vc: [string, string];

  before(async () => {
    app = await startTestApp();
    const started = await startInstance(app.database);
    second = started.server;
    vc = [app.urls.vc, started.config.urls.vc.href.replace(/\/$/, '')];
  });
  after(async () => {
    await second.close();
    await app.close();
  });

  it('registers one mac once out of 16 racing registrations on both, then the ledger verifies', async () => {
    const tenant = await app.createTenant();
    const token = await app.login(tenant);
    const register = (mac: string, i: number) =>
      request('POST', `${vc[i % 2]}/api/device/register`, { token, body: { mac, firmware_version: '1.0.0' } });
    const racing = await Promise.all(Array.from({ length: 16 }, (_, i) => register('02:DD:00:00:00:01', i)));
    const distinct = await Promise.all(Array.from({ length: 16 }, (_, i) => register(`02:DD:00:00:01:${String(i).padStart(2, '0')}`, i)));
    assert.deepEqual(
      racing.filter((a) => a.status !== 200).map((a) => a.text),
      [],
    );
    const messages = racing.map((a) => (a.body as { message: string }).message).sort();
    assert.deepEqual(messages, ['Device exists!', ...Array<string>(14).fill('Device exists!'), 'Device inserted!'].sort());
    assert.ok(distinct.every((a) => a.status === 200 && (a.body as { message: string }).message === 'Device inserted!'));
    const rows = await app.database.query('SELECT id FROM device WHERE mac = $1', ['02:DD:00:00:00:01']);
    assert.equal(rows.length, 1);
    const verified = await app.server.app.get(LedgerService).verify();
    assert.equal(verified.ok, true, JSON.stringify(verified.firstBreak));
    assert.ok(verified.entries >= 2 + 17, `${verified.entries} entries`);
  });
});
