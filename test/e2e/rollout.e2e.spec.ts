import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RolloutPlanService } from '#src/domain/rollout/rollout-plan.service.js';
import { RolloutProgressService } from '#src/domain/rollout/rollout-progress.service.js';
import { TenantService } from '#src/domain/tenant/tenant.service.js';
import { get, post, startTestApp, type Answer, type TestApp, type TestTenant } from '#test/support/harness.js';

/** `YYYY-MM-DD HH:MM:SS` in UTC, the wire format of `start_date` (docs/device-interface.md). */
function utc(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

const ROLLOUT_KEYS = ['rollout_id', 'rollout_name', 'priority', 'start_date', 'version', 'firmware_id'];

/**
 * docs/decisions.md §6 next rollout / rollout success and §8 choice, through HTTP as devices ask.
 * Every test works in its own tenant so its rollouts are the only candidates.
 */
describe('rollout endpoints (docs/decisions.md §6, §8)', () => {
  let app: TestApp;
  let fwCounter = 0;

  /** A tenant with a logged-in device token. */
  interface Fleet {
    tenant: TestTenant;
    token: string;
  }

  const fleet = async (): Promise<Fleet> => {
    const tenant = await app.createTenant();
    return { tenant, token: await app.login(tenant) };
  };
  const register = async (f: Fleet, mac: string, version: string, token = f.token): Promise<void> => {
    const answer = await post(`${app.urls.vc}/api/device/register`, { mac, firmware_version: version, name: `dev-${mac}` }, token);
    assert.deepEqual(answer.body, { message: 'Device inserted!' });
  };
  const next = (f: Fleet, mac: string, version: string, token = f.token): Promise<Answer> =>
    post(`${app.urls.vc}/api/device/next/rollout`, { mac, firmware_version: version }, token);
  const success = (f: Fleet, body: Record<string, unknown>, token = f.token): Promise<Answer> =>
    post(`${app.urls.vc}/api/device/success/rollout`, body, token);
  const firmware = (f: Fleet, version: string, deviceType?: string) =>
    app.publishFirmware(f.tenant, version, Buffer.from(`firmware ${version} #${++fwCounter}`), deviceType);
  const deviceVersion = async (f: Fleet, mac: string): Promise<string> => {
    const answer = await get(`${app.urls.vc}/api/device/${mac}`, f.token);
    assert.equal(answer.status, 200, answer.text);
    return (answer.body as Record<string, string>)['firmware-version'];
  };
  /** A new tenant with one device `mac` on `running` in group `g`, and its firmware `version` (`fw`) to roll out. */
  const deviceInGroup = async (mac: string, running = '1.0', version = '2.0'): Promise<{ f: Fleet; fw: { id: number } }> => {
    const f = await fleet();
    await register(f, mac, running);
    const fw = await firmware(f, version);
    await app.createGroup(f.tenant, 'g', [mac]);
    return { f, fw };
  };
  /** The rollout id a next-rollout answer offers, or `null` for `{}`. */
  const offered = async (f: Fleet, mac: string, version: string): Promise<string | null> => {
    const answer = await next(f, mac, version);
    assert.equal(answer.status, 200, answer.text);
    if (Object.keys(answer.body as object).length === 0) return null;
    return (answer.body as { rollout_id: string }).rollout_id;
  };

  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  describe('next rollout', () => {
    it("answers 404 Device does't exist! for a device not registered", async () => {
      const f = await fleet();
      const fw = await firmware(f, '2.0');
      await app.createGroup(f.tenant, 'g', ['AC:67:B2:10:00:01']);
      await app.createRollout(f.tenant, { firmwareId: fw.id, group: 'g' });
      const answer = await next(f, 'AC:67:B2:10:00:01', '1.0');
      assert.equal(answer.status, 404);
      assert.deepEqual(answer.body, { message: "Device does't exist!" });
    });

    it('refuses the token of a revoked key whatever the body and the device, and writes nothing', async () => {
      const f = await fleet();
      await register(f, 'AC:67:B2:10:00:0F', '1.0');
      assert.equal((await next(f, 'AC:67:B2:10:00:0F', '1.0')).status, 200);
      await app.server.app.get(TenantService).revokeDeviceKey(f.tenant.id, String(f.tenant.deviceKeyId));
      for (const [mac, version] of [
        ['AC:67:B2:10:00:0F', '1.1'],
        ['AC:67:B2:10:00:0E', '1.1'],
        ['not a mac', ''],
      ]) {
        const answer = await next(f, mac, version);
        assert.equal(answer.status, 401, `${mac} ${version}: ${answer.text}`);
        assert.deepEqual(answer.body, { message: 'JWT is not valid' });
      }
      const [row] = await app.database.query<{ firmware_version: string }>('SELECT firmware_version FROM device WHERE mac = $1', [
        'AC:67:B2:10:00:0F',
      ]);
      assert.equal(row.firmware_version, '1.0');
    });

    it("makes the body's firmware_version the device's firmware-version", async () => {
      const f = await fleet();
      await register(f, 'AC:67:B2:10:00:02', '1.0');
      const answer = await next(f, 'ac-67-b2-10-00-02', '1.5-custom');
      assert.equal(answer.status, 200);
      assert.equal(await deviceVersion(f, 'AC:67:B2:10:00:02'), '1.5-custom');
      await next(f, 'AC67B2100002', '0.9');
      assert.equal(await deviceVersion(f, 'AC:67:B2:10:00:02'), '0.9');
    });

    it('answers {} exactly when there is no rollout', async () => {
      const f = await fleet();
      await register(f, 'AC:67:B2:10:00:03', '1.0');
      const answer = await next(f, 'AC:67:B2:10:00:03', '1.0');
      assert.equal(answer.status, 200);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(answer.body, {});
      assert.equal(answer.text.trim(), '{}');
    });

    it('answers the rollout with exactly the documented keys in order, all strings', async () => {
      const mac = 'AC:67:B2:10:00:04';
      const { f, fw } = await deviceInGroup(mac, '1.0', '2.0.1');
      const rollout = await app.createRollout(f.tenant, {
        name: 'spring update',
        firmwareId: fw.id,
        group: 'g',
        priority: 3,
        startDate: '2024-02-29 23:59:58',
      });
      const answer = await next(f, mac, '1.0');
      assert.equal(answer.status, 200);
      assert.deepEqual(Object.keys(answer.body as object), ROLLOUT_KEYS);
      for (const [key, value] of Object.entries(answer.body as object)) assert.equal(typeof value, 'string', key);
      assert.deepEqual(answer.body, {
        rollout_id: String(rollout.id),
        rollout_name: 'spring update',
        priority: '3',
        start_date: '2024-02-29 23:59:58',
        version: '2.0.1',
        firmware_id: String(fw.id),
      });
      const body = answer.body as Record<string, string>;
      assert.match(body.start_date, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      assert.match(body.rollout_id, /^\d+$/);
      assert.match(body.firmware_id, /^\d+$/);
      assert.match(answer.text, /"priority":"3"/);
    });

    it('does not offer a draft (not started) rollout', async () => {
      const mac = 'AC:67:B2:10:00:05';
      const { f, fw } = await deviceInGroup(mac);
      const draft = await app.createRollout(f.tenant, { firmwareId: fw.id, group: 'g', start: false });
      assert.equal(await offered(f, mac, '1.0'), null);
      await app.server.app.get(RolloutPlanService).apply(f.tenant.id, draft.id, 'start');
      assert.equal(await offered(f, mac, '1.0'), String(draft.id));
    });

    it('does not offer a paused or cancelled rollout', async () => {
      const mac = 'AC:67:B2:10:00:06';
      const { f, fw } = await deviceInGroup(mac);
      const rollout = await app.createRollout(f.tenant, { firmwareId: fw.id, group: 'g' });
      assert.equal(await offered(f, mac, '1.0'), String(rollout.id));
      const plans = app.server.app.get(RolloutPlanService);
      await plans.apply(f.tenant.id, rollout.id, 'pause');
      assert.equal(await offered(f, mac, '1.0'), null);
      await plans.apply(f.tenant.id, rollout.id, 'resume');
      assert.equal(await offered(f, mac, '1.0'), String(rollout.id));
      await plans.apply(f.tenant.id, rollout.id, 'cancel');
      assert.equal(await offered(f, mac, '1.0'), null);
    });

    it('offers a rollout only once its start_date has passed', async () => {
      const mac = 'AC:67:B2:10:00:07';
      const { f, fw } = await deviceInGroup(mac);
      const startDate = utc(app.clock.now() + 600_000);
      const rollout = await app.createRollout(f.tenant, { firmwareId: fw.id, group: 'g', startDate });
      assert.equal(await offered(f, mac, '1.0'), null);
      app.clock.advance(300);
      assert.equal(await offered(f, mac, '1.0'), null);
      app.clock.advance(301);
      const answer = await next(f, mac, '1.0');
      assert.equal((answer.body as { rollout_id: string }).rollout_id, String(rollout.id));
      assert.equal((answer.body as { start_date: string }).start_date, startDate);
    });

    it('does not offer a rollout to a device outside its group', async () => {
      const f = await fleet();
      await register(f, 'AC:67:B2:10:00:08', '1.0');
      await register(f, 'AC:67:B2:10:00:09', '1.0');
      const fw = await firmware(f, '2.0');
      await app.createGroup(f.tenant, 'g', ['AC:67:B2:10:00:08']);
      await app.createGroup(f.tenant, 'other', ['AC:67:B2:10:00:0A']);
      const rollout = await app.createRollout(f.tenant, { firmwareId: fw.id, group: 'g' });
      assert.equal(await offered(f, 'AC:67:B2:10:00:08', '1.0'), String(rollout.id));
      assert.equal(await offered(f, 'AC:67:B2:10:00:09', '1.0'), null);
    });

    it('does not offer firmware built for another device type', async () => {
      const f = await fleet(); // its key is ESP32
      const esp8266: Fleet = { tenant: await app.createDeviceKey(f.tenant, 'ESP8266'), token: '' };
      esp8266.token = await app.login(esp8266.tenant);
      await register(f, 'AC:67:B2:10:00:0B', '1.0');
      await register(esp8266, 'AC:67:B2:10:00:0C', '1.0');
      const fw = await firmware(f, '2.0', 'ESP8266');
      await app.createGroup(f.tenant, 'mixed', ['AC:67:B2:10:00:0B', 'AC:67:B2:10:00:0C']);
      const rollout = await app.createRollout(f.tenant, { firmwareId: fw.id, group: 'mixed' });
      assert.equal(await offered(f, 'AC:67:B2:10:00:0B', '1.0'), null);
      assert.equal(await offered(esp8266, 'AC:67:B2:10:00:0C', '1.0'), String(rollout.id));
    });

    it('orders versions by numeric segments: 1.10 is an upgrade from 1.9', async () => {
      const mac = 'AC:67:B2:10:00:0D';
      const { f, fw } = await deviceInGroup(mac, '1.9', '1.10');
      const rollout = await app.createRollout(f.tenant, { firmwareId: fw.id, group: 'g' });
      const answer = await next(f, mac, '1.9');
      assert.equal((answer.body as { rollout_id: string }).rollout_id, String(rollout.id));
      assert.equal((answer.body as { version: string }).version, '1.10');
    });

    it('does not offer an older version (1.2 to a device on 1.10) unless marked downgrade', async () => {
      const mac = 'AC:67:B2:10:00:0E';
      const { f, fw } = await deviceInGroup(mac, '1.10', '1.2');
      await app.createRollout(f.tenant, { firmwareId: fw.id, group: 'g', name: 'plain' });
      assert.equal(await offered(f, mac, '1.10'), null);
      const downgrade = await app.createRollout(f.tenant, { firmwareId: fw.id, group: 'g', name: 'back', downgrade: true });
      const answer = await next(f, mac, '1.10');
      assert.equal((answer.body as { rollout_id: string }).rollout_id, String(downgrade.id));
      assert.equal((answer.body as { version: string }).version, '1.2');
    });

    it('does not offer the version the device already runs: it counts as confirmed there (docs/decisions.md §10.5)', async () => {
      const mac = 'AC:67:B2:10:00:0F';
      const { f, fw } = await deviceInGroup(mac);
      const rollout = await app.createRollout(f.tenant, { firmwareId: fw.id, group: 'g' });
      assert.equal(await offered(f, mac, '2.0'), null);
      const states = await app.database.query<{ state: string; failure_message: string }>(
        'SELECT s.state, s.failure_message FROM rollout_device_state s JOIN device d ON d.id = s.device_id WHERE s.rollout_id = $1 AND d.mac = $2',
        [rollout.id, mac],
      );
      assert.deepEqual(states, [{ state: 'confirmed', failure_message: 'already runs 2.0' }]);
      assert.equal(await offered(f, mac, '1.0'), null, 'settled: a confirmed device is not offered the rollout again');
    });

    it('picks the lowest priority number first', async () => {
      const mac = 'AC:67:B2:10:00:10';
      const { f, fw: fwA } = await deviceInGroup(mac);
      const fwB = await firmware(f, '3.0');
      // The less urgent one has the lower id and the earlier start.
      await app.createRollout(f.tenant, { firmwareId: fwB.id, group: 'g', priority: 5, startDate: '2020-01-01 00:00:00' });
      const urgent = await app.createRollout(f.tenant, { firmwareId: fwA.id, group: 'g', priority: 1, startDate: '2021-01-01 00:00:00' });
      await app.createRollout(f.tenant, { firmwareId: fwB.id, group: 'g', priority: 2, startDate: '2019-01-01 00:00:00' });
      const answer = await next(f, mac, '1.0');
      assert.equal((answer.body as { rollout_id: string }).rollout_id, String(urgent.id));
      assert.equal((answer.body as { priority: string }).priority, '1');
    });

    it('compares priorities as numbers (2 before 10)', async () => {
      const mac = 'AC:67:B2:10:00:11';
      const { f, fw } = await deviceInGroup(mac);
      await app.createRollout(f.tenant, { firmwareId: fw.id, group: 'g', priority: 10 });
      const two = await app.createRollout(f.tenant, { firmwareId: fw.id, group: 'g', priority: 2 });
      assert.equal(await offered(f, mac, '1.0'), String(two.id));
    });

    it('breaks a priority tie by the earliest start_date', async () => {
      const mac = 'AC:67:B2:10:00:12';
      const { f, fw } = await deviceInGroup(mac);
      await app.createRollout(f.tenant, { firmwareId: fw.id, group: 'g', priority: 2, startDate: '2023-06-01 00:00:00' });
      const earliest = await app.createRollout(f.tenant, { firmwareId: fw.id, group: 'g', priority: 2, startDate: '2023-05-31 23:59:59' });
      await app.createRollout(f.tenant, { firmwareId: fw.id, group: 'g', priority: 2, startDate: '2023-06-01 00:00:01' });
      const answer = await next(f, mac, '1.0');
      assert.equal((answer.body as { rollout_id: string }).rollout_id, String(earliest.id));
      assert.equal((answer.body as { start_date: string }).start_date, '2023-05-31 23:59:59');
    });

    it('breaks a priority and start_date tie by the lowest id', async () => {
      const mac = 'AC:67:B2:10:00:13';
      const { f, fw } = await deviceInGroup(mac);
      const first = await app.createRollout(f.tenant, {
        firmwareId: fw.id,
        group: 'g',
        priority: 4,
        startDate: '2022-01-01 00:00:00',
        name: 'first',
      });
      const second = await app.createRollout(f.tenant, {
        firmwareId: fw.id,
        group: 'g',
        priority: 4,
        startDate: '2022-01-01 00:00:00',
        name: 'second',
      });
      assert.ok(first.id < second.id);
      const answer = await next(f, mac, '1.0');
      assert.equal((answer.body as { rollout_id: string }).rollout_id, String(first.id));
      assert.equal((answer.body as { rollout_name: string }).rollout_name, 'first');
    });

    it('does not offer a rollout again after the device reported success for it', async () => {
      const mac = 'AC:67:B2:10:00:14';
      const { f, fw } = await deviceInGroup(mac);
      const fw3 = await firmware(f, '3.0');
      const first = await app.createRollout(f.tenant, { firmwareId: fw.id, group: 'g', priority: 1 });
      const later = await app.createRollout(f.tenant, { firmwareId: fw3.id, group: 'g', priority: 2 });
      assert.equal(await offered(f, mac, '1.0'), String(first.id));
      assert.deepEqual((await success(f, { mac, firmware_version: '2.0', rollout_id: String(first.id) })).body, {
        message: 'Successfully inserted!',
      });
      // Even when the device still claims its old version, the done rollout is not offered again.
      assert.equal(await offered(f, mac, '1.0'), String(later.id));
      assert.deepEqual((await success(f, { mac, firmware_version: '3.0', rollout_id: String(later.id) })).body, {
        message: 'Successfully inserted!',
      });
      assert.equal(await offered(f, mac, '1.0'), null);
    });
  });

  describe('rollout success', () => {
    /** A tenant with one device on 1.0 in group `g` and one started rollout to 2.0 targeting it. */
    const scenario = async (mac: string) => {
      const { f, fw } = await deviceInGroup(mac);
      const rollout = await app.createRollout(f.tenant, { firmwareId: fw.id, group: 'g' });
      return { f, rollout };
    };
    const assertNotFound = (answer: Answer): void => {
      assert.equal(answer.status, 404, answer.text);
      assert.deepEqual(answer.body, { message: 'Rollout not found' });
    };

    it('answers 404 Rollout not found for an unknown rollout id', async () => {
      const mac = 'AC:67:B2:20:00:01';
      const { f, rollout } = await scenario(mac);
      assertNotFound(await success(f, { mac, firmware_version: '2.0', rollout_id: String(rollout.id + 1000) }));
      assertNotFound(await success(f, { mac, firmware_version: '2.0', rollout_id: '999999999' }));
      assertNotFound(await success(f, { mac, firmware_version: '2.0', rollout_id: 'abc' }));
      assert.equal(await deviceVersion(f, mac), '1.0');
    });

    it("answers 404 Rollout not found for another tenant's rollout", async () => {
      const mac = 'AC:67:B2:20:00:02';
      const { rollout } = await scenario(mac);
      const other = await fleet();
      await register(other, mac, '1.0');
      await app.createGroup(other.tenant, 'g', [mac]);
      assertNotFound(await success(other, { mac, firmware_version: '2.0', rollout_id: String(rollout.id) }));
      assert.equal(await deviceVersion(other, mac), '1.0');
    });

    it('answers 404 Rollout not found for a rollout that does not target the device', async () => {
      const mac = 'AC:67:B2:20:00:03';
      const { f, rollout } = await scenario(mac);
      const outsider = 'AC:67:B2:20:00:04';
      await register(f, outsider, '1.0');
      assertNotFound(await success(f, { mac: outsider, firmware_version: '2.0', rollout_id: String(rollout.id) }));
      assert.equal(await deviceVersion(f, outsider), '1.0');
    });

    it('answers Successfully inserted! first, sets the device version, then Existing Record', async () => {
      const mac = 'AC:67:B2:20:00:05';
      const { f, rollout } = await scenario(mac);
      const first = await success(f, { mac: 'ac-67-b2-20-00-05', firmware_version: '2.0', rollout_id: String(rollout.id) });
      assert.equal(first.status, 200);
      assert.deepEqual(first.body, { message: 'Successfully inserted!' });
      assert.equal(await deviceVersion(f, mac), '2.0');
      const again = await success(f, { mac, firmware_version: '2.0', rollout_id: String(rollout.id) });
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, { message: 'Existing Record' });
      const progress = await app.server.app.get(RolloutProgressService).get(f.tenant.id, rollout.id);
      assert.equal(progress.updated, 1);
    });

    it('answers exactly one Successfully inserted! to 20 concurrent identical reports', async () => {
      const mac = 'AC:67:B2:20:00:06';
      const { f, rollout } = await scenario(mac);
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => success(f, { mac, firmware_version: '2.0', rollout_id: String(rollout.id) })),
      );
      for (const answer of answers) assert.equal(answer.status, 200, answer.text);
      const messages = answers.map((a) => (a.body as { message: string }).message);
      assert.equal(messages.filter((m) => m === 'Successfully inserted!').length, 1, messages.join(', '));
      assert.equal(messages.filter((m) => m === 'Existing Record').length, 19, messages.join(', '));
      assert.equal(await deviceVersion(f, mac), '2.0');
    });
  });
});
