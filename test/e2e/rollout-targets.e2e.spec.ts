import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { post, startTestApp, type TestApp, type TestTenant } from '#test/support/harness.js';
import { rolloutDriver, type Fleet } from '#test/support/rollouts.js';
import { DataSource } from 'typeorm';
import { query } from '#src/platform/database/sql.js';

/**
 * Which devices a rollout targets (docs/decisions.md §10): registered members of its group of the
 * firmware's device type. Members of another type and members that never registered are shown
 * apart and never waited for, so a rollout to a mixed group finishes. Driven over HTTP as devices
 * and operators speak it, on both engines.
 */
describe('rollout targets: mixed device types and unregistered members (docs/decisions.md §10)', () => {
  let app: TestApp;
  let bearer: string;
  const { nextMac, operator, rollout, next } = rolloutDriver(() => ({ app, bearer }), '7B');

  before(async () => {
    app = await startTestApp();
    bearer = await app.createOperatorToken('rollout-targets-spec');
  });
  after(() => app.close());

  /** Registers `mac` on 1.0.0 with the key of `tenant` (whose device type it takes). */
  const register = async (tenant: TestTenant, mac: string): Promise<string> => {
    const token = await app.login(tenant);
    const answer = await post(`${app.urls.vc}/api/device/register`, { mac, firmware_version: '1.0.0', name: mac }, token);
    assert.equal(answer.status, 200, answer.text);
    return token;
  };

  /** A device takes the rollout as the ESP32 SDK does: offered, success with the old version, then a poll on the new one. */
  const update = async (f: Fleet, mac: string, id: number): Promise<void> => {
    assert.equal(await next(f, mac, '1.0.0'), String(id));
    const success = await post(
      `${app.urls.vc}/api/device/success/rollout`,
      { mac, firmware_version: '1.0.0', rollout_id: String(id) },
      f.token,
    );
    assert.deepEqual(success.body, { message: 'Successfully inserted!' });
    assert.equal(await next(f, mac, '2.0.0'), null);
  };

  /** Plans and starts a rollout of the fleet's firmware to its group `fleet`; its id. */
  const start = async (f: Fleet): Promise<number> => {
    const created = await operator('POST', `/tenants/${f.tenant.name}/rollouts`, {
      name: 'to 2.0.0',
      firmware_id: f.firmwareId,
      group: 'fleet',
      start_date: '2020-01-01 00:00:00',
      success_threshold: 0.9,
    });
    assert.equal(created.status, 201, created.text);
    const id = (created.body as { id: number }).id;
    assert.equal((await operator('POST', `/tenants/${f.tenant.name}/rollouts/${id}/start`)).status, 200);
    return id;
  };

  it('a group of two ESP32 and one ESP8266: the ESP8266 is not applicable, the rollout finishes once both ESP32 confirmed', async () => {
    const tenant = await app.createTenant(undefined, 'ESP32');
    const esp8266 = await app.createDeviceKey(tenant, 'ESP8266');
    const [a, b, c] = [nextMac(), nextMac(), nextMac()];
    const token = await register(tenant, a);
    await register(tenant, b);
    const esp8266Token = await register(esp8266, c);
    await app.createGroup(tenant, 'fleet', [a, b, c]);
    const firmware = await app.publishFirmware(tenant, '2.0.0', Buffer.from('esp32 image 2.0.0'), 'ESP32');
    const f: Fleet = { tenant, token, macs: [a, b], firmwareId: firmware.id, cid: firmware.cid };
    const id = await start(f);

    const body = (await operator('GET', `/tenants/${tenant.name}/rollouts/${id}`)).body as Record<string, unknown>;
    assert.deepEqual(
      [body['targeted'], body['unsettled'], body['not_applicable'], body['not_registered']],
      [2, 2, 1, 0],
      'the ESP8266 is shown apart, not as pending',
    );
    assert.equal(await next({ ...f, token: esp8266Token }, c, '1.0.0'), null, 'the ESP8266 is never offered an ESP32 image');

    await update(f, a, id);
    await update(f, b, id);
    const done = await rollout(f, id);
    assert.equal(done.status, 'finished');
    assert.deepEqual(
      [done.targeted, done.confirmed, done.unsettled, done.not_applicable, done.updated, done.pending],
      [2, 2, 0, 1, 2, 0],
      'the deprecated updated and pending say the same as confirmed and unsettled',
    );
    assert.equal(done.waves[0].status, 'passed');
    assert.equal(done.waves[0].devices['targeted'], 2);
  });

  it('members that never registered are no targets and count in no wave, but hold the finish until they register or leave the group', async () => {
    const tenant = await app.createTenant(undefined, 'ESP32');
    const [a, b] = [nextMac(), nextMac()];
    const absent = [nextMac(), nextMac(), nextMac()];
    const token = await register(tenant, a);
    await register(tenant, b);
    await app.createGroup(tenant, 'fleet', [a, b, ...absent]);
    const firmware = await app.publishFirmware(tenant, '2.0.0', Buffer.from('image 2.0.0 of a fleet with absent members'), 'ESP32');
    const f: Fleet = { tenant, token, macs: [a, b], firmwareId: firmware.id, cid: firmware.cid };
    const id = await start(f);

    let now = await rollout(f, id);
    assert.deepEqual([now.targeted, now.unsettled, now.not_registered], [2, 2, 3]);

    await update(f, a, id);
    await register(tenant, absent[0]);
    now = await rollout(f, id);
    assert.deepEqual(
      [now.status, now.targeted, now.confirmed, now.unsettled, now.not_registered],
      ['active', 3, 1, 2, 2],
      'the newly registered member is a target now, pending',
    );
    await update(f, absent[0], id);
    await update(f, b, id);
    now = await rollout(f, id);
    assert.deepEqual(
      [now.status, now.confirmed, now.unsettled, now.not_registered, now.waves[0].status],
      ['active', 3, 0, 2, 'passed'],
      'every target confirmed: the wave passed, the two members not registered hold the finish',
    );

    // The operator lets it finish without them: out of the group, and it finishes at once.
    const removed = await operator('POST', `/tenants/${tenant.name}/groups/fleet/members/remove`, { macs: absent.slice(1) });
    assert.equal(removed.status, 200, removed.text);
    const done = await rollout(f, id);
    assert.deepEqual([done.status, done.confirmed, done.not_registered], ['finished', 3, 0]);
  });

  it('a start over thousands of devices of two tenants places every target in the wave of its rank, and only the targets', async () => {
    // Devices of two tenants in alternating blocks of ids (SQLite places targets in slices of
    // device ids: the ranks must run on across slices and over the other tenant's devices).
    const tenant = await app.createTenant(undefined, 'ESP32');
    const other = await app.createTenant(undefined, 'ESP32');
    const mac = (owner: number, n: number) =>
      `02:7C:0${owner}:${[(n >> 16) & 255, (n >> 8) & 255, n & 255].map((b) => b.toString(16).padStart(2, '0')).join(':')}`.toUpperCase();
    const insert = async (owner: TestTenant, ownerIndex: number, from: number, count: number) => {
      for (let start = from; start < from + count; start += 250) {
        const rows = Array.from({ length: Math.min(250, from + count - start) }, (_, i) => start + i);
        await query(
          app.server.app.get(DataSource).manager,
          `INSERT INTO device (tenant_id, mac, name, firmware_version, device_type, created_at) VALUES ${rows
            .map((_, r) => `($${r * 3 + 1}, $${r * 3 + 2}, 'd', '1.0.0', $${r * 3 + 3}, 0)`)
            .join(', ')}`,
          rows.flatMap((n) => [owner.id, mac(ownerIndex, n), n % 5 === 4 ? 'ESP8266' : 'ESP32']),
        );
      }
    };
    for (let block = 0; block < 6; block++) {
      await insert(tenant, 1, block * 900, 900);
      await insert(other, 2, block * 700, 700);
    }
    // Every second device of the tenant is a member (one in five of those an ESP8266), the other
    // tenant's devices with the same numbers are not, and 40 members never registered.
    const members = Array.from({ length: 2700 }, (_, i) => mac(1, 2 * i));
    await app.createGroup(tenant, 'fleet', [...members, ...Array.from({ length: 40 }, (_, i) => mac(3, i))]);
    const firmware = await app.publishFirmware(tenant, '2.0.0', Buffer.from('firmware 2.0.0 of the sliced start'));
    const f: Fleet = { tenant, token: await app.login(tenant), macs: members, firmwareId: firmware.id, cid: firmware.cid };
    const created = await operator('POST', `/tenants/${tenant.name}/rollouts`, {
      name: 'sliced',
      firmware_id: f.firmwareId,
      group: 'fleet',
      start_date: '2020-01-01 00:00:00',
      waves: ['10%', '35%', '100%'],
    });
    assert.equal(created.status, 201, created.text);
    const id = (created.body as { id: number }).id;
    assert.equal((await operator('POST', `/tenants/${tenant.name}/rollouts/${id}/start`)).status, 200);

    // The targets, by device id: the ESP32 members of the tenant.
    const devices = await app.database.query<{ id: unknown; mac: string; device_type: string }>(
      'SELECT id, mac, device_type FROM device WHERE tenant_id = $1 ORDER BY id',
      [tenant.id],
    );
    const memberSet = new Set(members);
    const targets = devices.filter((d) => memberSet.has(d.mac) && d.device_type === 'ESP32').map((d) => Number(d.id));
    assert.ok(targets.length > 2000, `${targets.length} targets span several slices`);
    const ends = [Math.ceil(targets.length * 0.1), Math.ceil(targets.length * 0.35), targets.length];
    const expected = targets.map((device, rank) => `${device}:${ends.findIndex((end) => rank < end) + 1}`);
    const states = await app.database.query<{ device_id: unknown; wave: unknown; state: string }>(
      'SELECT device_id, wave, state FROM rollout_device_state WHERE rollout_id = $1 ORDER BY device_id',
      [id],
    );
    assert.deepEqual(
      states.map((s) => `${Number(s.device_id)}:${Number(s.wave)}`),
      expected,
    );
    assert.deepEqual([...new Set(states.map((s) => s.state))], ['pending']);
    const history = await app.database.query<{ n: unknown }>(
      "SELECT COUNT(*) AS n FROM rollout_device_transition WHERE rollout_id = $1 AND state = 'pending'",
      [id],
    );
    assert.equal(Number(history[0].n), targets.length, 'one history entry each');
    const view = await rollout(f, id);
    assert.deepEqual(
      view.waves.map((w) => w.devices.targeted),
      [ends[0], ends[1] - ends[0], ends[2] - ends[1]],
    );
    assert.deepEqual([view.not_registered, view.not_applicable], [40, 2700 - targets.length]);
    // The first target is offered the rollout; the first of wave 2 is not yet.
    const byId = new Map(devices.map((d) => [Number(d.id), d.mac]));
    assert.equal(await next(f, byId.get(targets[0])!), String(id));
    assert.equal(await next(f, byId.get(targets[ends[0]])!), null);
  });
});
