import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { post, startTestApp, type TestApp, type TestTenant } from '#test/support/harness.js';
import { rolloutDriver, type Fleet } from '#test/support/rollouts.js';

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
});
