import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LedgerService } from '#src/domain/ledger/ledger.service.js';
import { DeviceStateService } from '#src/domain/rollout/device-state.service.js';
import { post, request, startTestApp, type Answer, type TestApp } from '#test/support/harness.js';
import { rolloutDriver, type Fleet } from '#test/support/rollouts.js';

const NONE = {
  targeted: 0,
  pending: 0,
  offered: 0,
  downloading: 0,
  installed: 0,
  confirmed: 0,
  failed: 0,
  fell_back: 0,
  timed_out: 0,
  skipped: 0,
};

/**
 * Per-device rollout states (docs/decisions.md §10), driven over HTTP as the field devices
 * speak it: the ESP32 reports success before its reboot with the version it ran, the Pycom after
 * its reboot with the new one; downloads from the IPFS component carry the updater's MAC header.
 * Every test works in its own tenant.
 */
describe('rollout device states (docs/decisions.md §10)', () => {
  let app: TestApp;
  let bearer: string;
  const { nextMac, fleet, operator, plan, rollout, history, next, ledgerTypes } = rolloutDriver(() => ({ app, bearer }), '5A');
  const stateOf = async (f: Fleet, mac: string, id: number): Promise<string | undefined> =>
    (await history(f, mac)).find((row) => row.rollout_id === id)?.state;

  /** Device requests. */
  const download = async (f: Fleet, mac: string, header = 'x-ESP32-STA-MAC'): Promise<void> => {
    const answer = await request('GET', `${app.urls.ipfs}/firmware/${f.cid}`, { token: f.token, headers: { [header]: mac } });
    assert.equal(answer.status, 200, answer.text);
  };
  const success = (f: Fleet, mac: string, id: number | string, version: string): Promise<Answer> =>
    post(`${app.urls.vc}/api/device/success/rollout`, { mac, firmware_version: version, rollout_id: String(id) }, f.token);
  const failure = (f: Fleet, body: Record<string, unknown>): Promise<Answer> =>
    post(`${app.urls.vc}/api/device/failure/rollout`, body, f.token);
  const register = (f: Fleet, mac: string, version: string): Promise<Answer> =>
    post(`${app.urls.vc}/api/device/register`, { mac, firmware_version: version }, f.token);
  const deviceVersion = async (f: Fleet, mac: string): Promise<string> => {
    const answer = await request('GET', `${app.urls.vc}/api/device/${mac}`, { token: f.token });
    return (answer.body as Record<string, string>)['firmware-version'];
  };
  /** One device through offer and download, as the ESP updaters fetch the image. */
  const offerAndDownload = async (f: Fleet, mac: string, id: number, header?: string): Promise<void> => {
    assert.equal(await next(f, mac, '1.0.0'), String(id));
    await download(f, mac, header);
  };

  before(async () => {
    app = await startTestApp({ ROLLOUT_CONFIRMATION_WINDOW_SECONDS: '600' });
    bearer = await app.createOperatorToken('rollout-states-spec');
  });
  after(() => app.close());

  it('ESP32: offered, downloading, success with the old version (installed), a poll on the new version → confirmed', async () => {
    const f = await fleet(2);
    const id = await plan(f);
    const [mac] = f.macs;
    assert.equal(await stateOf(f, mac, id), 'pending');
    await offerAndDownload(f, mac, id);
    assert.equal(await stateOf(f, mac, id), 'downloading');
    assert.deepEqual((await success(f, mac, id, '1.0.0')).body, { message: 'Successfully inserted!' });
    assert.equal(await stateOf(f, mac, id), 'installed');
    assert.equal(await deviceVersion(f, mac), '1.0.0', 'a report of the old version does not move the version');
    assert.deepEqual((await success(f, mac, id, '1.0.0')).body, { message: 'Existing Record' });
    let now = await rollout(f, id);
    assert.deepEqual([now.updated, now.pending, now.devices], [0, 2, { ...NONE, targeted: 2, pending: 1, installed: 1 }]);
    // After the reboot, the new image asks again.
    assert.equal(await next(f, mac, '2.0.0'), null);
    assert.equal(await deviceVersion(f, mac), '2.0.0');
    const [row] = await history(f, mac);
    assert.deepEqual(
      [row.state, row.attempts, row.reported_version, row.history.map((h) => h.state)],
      ['confirmed', 1, '1.0.0', ['pending', 'offered', 'downloading', 'installed', 'confirmed']],
    );
    now = await rollout(f, id);
    assert.deepEqual([now.status, now.updated, now.pending], ['active', 1, 1]);
    assert.equal(await next(f, mac, '1.0.0'), null, 'a confirmed device is never offered the rollout again');
    assert.ok((await ledgerTypes(id)).includes('rollout.device_confirmed'));
  });

  it('installed in a rollout paused or cancelled since: the poll on the new version still confirms it there', async () => {
    for (const action of ['pause', 'cancel']) {
      const f = await fleet(1);
      const id = await plan(f);
      const [mac] = f.macs;
      await offerAndDownload(f, mac, id);
      await success(f, mac, id, '1.0.0');
      const acted = await operator('POST', `/tenants/${f.tenant.name}/rollouts/${id}/${action}`, {});
      assert.ok(acted.status < 300, acted.text);
      assert.equal(await next(f, mac, '2.0.0'), null);
      assert.equal(await stateOf(f, mac, id), 'confirmed', action);
      assert.equal(await deviceVersion(f, mac), '2.0.0');
    }
  });

  it('ESP32 whose new image does not boot: a poll on the old version after the success report → fell_back', async () => {
    const f = await fleet(1);
    const id = await plan(f);
    const [mac] = f.macs;
    await offerAndDownload(f, mac, id);
    assert.deepEqual((await success(f, mac, id, '1.0.0')).body, { message: 'Successfully inserted!' });
    assert.equal(await next(f, mac, '1.0.0'), null, 'a fallen-back device is not offered the rollout again until retried');
    const [row] = await history(f, mac);
    assert.deepEqual([row.state, row.failure_message], ['fell_back', 'reported 1.0.0, not 2.0.0']);
    const now = await rollout(f, id);
    assert.deepEqual([now.status, now.updated, now.pending, now.devices.fell_back], ['finished', 0, 0, 1]);
  });

  it('ESP32 that registers again after its reboot: confirmed by the registration (the record stays as it was)', async () => {
    const f = await fleet(1);
    const id = await plan(f);
    const [mac] = f.macs;
    await offerAndDownload(f, mac, id);
    await success(f, mac, id, '1.0.0');
    assert.deepEqual((await register(f, mac, '2.0.0')).body, { message: 'Device exists!' });
    assert.equal(await stateOf(f, mac, id), 'confirmed');
    assert.equal(await deviceVersion(f, mac), '1.0.0', 'Device exists! leaves the stored record unchanged');
  });

  it('Pycom: a success report on the new version (after its reboot) → confirmed at once, and the version is set', async () => {
    const f = await fleet(1);
    const id = await plan(f);
    const [mac] = f.macs;
    assert.equal(await next(f, mac, '1.0.0'), String(id));
    assert.deepEqual((await success(f, mac, id, '2.0.0')).body, { message: 'Successfully inserted!' });
    assert.equal(await deviceVersion(f, mac), '2.0.0');
    const [row] = await history(f, mac);
    assert.deepEqual(
      row.history.map((h) => h.state),
      ['pending', 'offered', 'confirmed'],
    );
    assert.equal((await rollout(f, id)).status, 'finished');
  });

  it('a failure report → failed with its message, not offered again; same tenant and target rules as success', async () => {
    const f = await fleet(2);
    const id = await plan(f);
    const [mac, other] = f.macs;
    await offerAndDownload(f, mac, id, 'x-ESP8266-STA-MAC');
    const body = { mac: mac.toLowerCase(), firmware_version: '1.0.0', rollout_id: String(id), message: 'flash write failed at 0x10000' };
    assert.deepEqual((await failure(f, body)).body, { message: 'Failure recorded' });
    assert.deepEqual((await failure(f, body)).body, { message: 'Existing Record' });
    const [row] = await history(f, mac);
    assert.deepEqual([row.state, row.failure_message, row.history.at(-1)?.message], ['failed', body.message, body.message]);
    assert.equal(await deviceVersion(f, mac), '1.0.0');
    assert.equal(await next(f, mac, '1.0.0'), null);
    assert.equal(await next(f, other, '1.0.0'), String(id), 'the other device still is');
    // Another tenant's device, an unknown rollout, a bad message.
    const g = await fleet(1);
    const foreign = await failure(g, { ...body, mac: g.macs[0] });
    assert.deepEqual([foreign.status, foreign.body], [404, { message: 'Rollout not found' }]);
    const absent = await failure(f, { ...body, rollout_id: '999999' });
    assert.deepEqual([absent.status, absent.body], [404, { message: 'Rollout not found' }]);
    const long = await failure(f, { ...body, mac: other, message: 'x'.repeat(501) });
    assert.deepEqual([long.status, long.body], [400, { message: 'message must be at most 500 characters' }]);
    assert.equal(await stateOf(f, other, id), 'offered');
    const counts = (await rollout(f, id)).devices;
    assert.deepEqual(counts, { ...NONE, targeted: 2, offered: 1, failed: 1 });
  });

  it('silent past the confirmation window after the success report → failed (the sweep)', async () => {
    const f = await fleet(2);
    const id = await plan(f);
    const [mac, other] = f.macs;
    await offerAndDownload(f, mac, id);
    await success(f, mac, id, '1.0.0');
    const sweeper = app.server.app.get(DeviceStateService);
    app.clock.advance(599);
    assert.equal(await sweeper.sweep(), 0);
    assert.equal(await stateOf(f, mac, id), 'installed');
    app.clock.advance(2);
    assert.equal(await sweeper.sweep(), 1);
    const [row] = await history(f, mac);
    assert.deepEqual([row.state, row.failure_message], ['failed', 'no confirmation within 600 s after the success report']);
    assert.equal(await stateOf(f, other, id), 'pending');
  });

  it('a device added to the group mid-rollout joins the last wave and is offered it', async () => {
    const f = await fleet(1);
    const id = await plan(f);
    const late = nextMac();
    assert.equal((await register(f, late, '1.0.0')).status, 200);
    assert.equal(await next(f, late, '1.0.0'), null, 'not a member yet');
    const added = await operator('POST', `/tenants/${f.tenant.name}/groups/fleet/members`, { macs: [late] });
    assert.ok(added.status < 300, added.text);
    assert.equal((await rollout(f, id)).targeted, 2);
    assert.equal(await next(f, late, '1.0.0'), String(id));
    assert.deepEqual((await success(f, late, id, '2.0.0')).body, { message: 'Successfully inserted!' });
    const [row] = await history(f, late);
    assert.deepEqual([row.state, row.wave], ['confirmed', 1]);
    assert.equal((await app.server.app.get(LedgerService).verify()).ok, true);
  });
});
