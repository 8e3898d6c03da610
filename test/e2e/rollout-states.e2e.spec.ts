import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { LedgerEntry } from '#src/ledger/ledger-entry.entity.js';
import { LedgerService, Subject } from '#src/ledger/ledger.service.js';
import { DeviceStateService } from '#src/rollout/device-state.service.js';
import { post, request, startTestApp, type Answer, type TestApp, type TestTenant } from '#test/support/harness.js';

/** A rollout as the operator API answers it (the fields these specs read). */
interface RolloutBody {
  id: number;
  status: string;
  targeted: number;
  updated: number;
  pending: number;
  devices: Record<string, number>;
  waves: { wave: number; bound: string; status: string; started_at: string | null; devices: Record<string, number> }[];
  current_wave: number;
  awaiting_approval: boolean;
  pause_reason: string | null;
}

/** A device's state in one rollout, as `GET …/devices/:mac/rollouts` answers it. */
interface DeviceRolloutBody {
  rollout_id: number;
  state: string;
  wave: number;
  attempts: number;
  failure_message: string | null;
  reported_version: string | null;
  history: { state: string; at: string; message: string | null }[];
}

const NONE = { targeted: 0, pending: 0, offered: 0, downloading: 0, installed: 0, confirmed: 0, failed: 0, fell_back: 0 };

/**
 * Per-device rollout states (README "Rollout semantics"), driven over HTTP as the field devices
 * speak it: the ESP32 reports success before its reboot with the version it ran, the Pycom after
 * its reboot with the new one; downloads from the IPFS component carry the updater's MAC header.
 * Every test works in its own tenant.
 */
describe('rollout device states (README "Rollout semantics")', () => {
  let app: TestApp;
  let bearer: string;
  let macCounter = 0;

  /** A tenant with a device token, its own firmware 2.0.0 and a group of `count` registered devices on 1.0.0. */
  interface Fleet {
    tenant: TestTenant;
    token: string;
    macs: string[];
    firmwareId: number;
    cid: string;
  }

  const fleet = async (count: number, version = '2.0.0'): Promise<Fleet> => {
    const tenant = await app.createTenant();
    const token = await app.login(tenant);
    const macs = Array.from({ length: count }, () => nextMac());
    for (const mac of macs) {
      const answer = await post(`${app.urls.vc}/api/device/register`, { mac, firmware_version: '1.0.0', name: mac }, token);
      assert.equal(answer.status, 200, answer.text);
    }
    await app.createGroup(tenant, 'fleet', macs);
    const firmware = await app.publishFirmware(tenant, version, Buffer.from(`firmware ${version} of ${tenant.name}`));
    return { tenant, token, macs, firmwareId: firmware.id, cid: firmware.cid };
  };
  const nextMac = (): string => {
    const n = ++macCounter;
    return `02:5A:00:${((n >> 16) & 255).toString(16).padStart(2, '0')}:${((n >> 8) & 255).toString(16).padStart(2, '0')}:${(n & 255)
      .toString(16)
      .padStart(2, '0')}`.toUpperCase();
  };
  const operator = (method: string, path: string, body?: unknown): Promise<Answer> =>
    request(method, `${app.urls.operator}${path}`, { bearer, body });
  const plan = async (f: Fleet, extra: Record<string, unknown> = {}): Promise<number> => {
    const created = await operator('POST', `/tenants/${f.tenant.name}/rollouts`, {
      name: 'to 2.0.0',
      firmware_id: f.firmwareId,
      group: 'fleet',
      start_date: '2020-01-01 00:00:00',
      ...extra,
    });
    assert.equal(created.status, 201, created.text);
    const id = (created.body as RolloutBody).id;
    const started = await operator('POST', `/tenants/${f.tenant.name}/rollouts/${id}/start`);
    assert.equal(started.status, 200, started.text);
    return id;
  };
  const rollout = async (f: Fleet, id: number): Promise<RolloutBody> => {
    const answer = await operator('GET', `/tenants/${f.tenant.name}/rollouts/${id}`);
    assert.equal(answer.status, 200, answer.text);
    return answer.body as RolloutBody;
  };
  const history = async (f: Fleet, mac: string): Promise<DeviceRolloutBody[]> => {
    const answer = await operator('GET', `/tenants/${f.tenant.name}/devices/${mac.toLowerCase()}/rollouts`);
    assert.equal(answer.status, 200, answer.text);
    return answer.body as DeviceRolloutBody[];
  };
  const stateOf = async (f: Fleet, mac: string, id: number): Promise<string | undefined> =>
    (await history(f, mac)).find((row) => row.rollout_id === id)?.state;

  /** Device requests. */
  const next = async (f: Fleet, mac: string, version: string): Promise<string | null> => {
    const answer = await post(`${app.urls.vc}/api/device/next/rollout`, { mac, firmware_version: version }, f.token);
    assert.equal(answer.status, 200, answer.text);
    return (answer.body as { rollout_id?: string }).rollout_id ?? null;
  };
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
  const ledgerTypes = async (id: number): Promise<string[]> =>
    (
      await app.server.app
        .get(DataSource)
        .getRepository(LedgerEntry)
        .find({ where: { subject: Subject.rollout(id) }, order: { seq: 'ASC' } })
    ).map((entry) => entry.type);

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
