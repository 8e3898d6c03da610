import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { post, startTestApp, type TestApp } from '#test/support/harness.js';
import { rolloutDriver, type Fleet, type RolloutBody } from '#test/support/rollouts.js';

const run = promisify(execFile);

/** The repository root (this file runs from `dist/test/e2e`): the CLI runs from there. */
const ROOT = join(import.meta.dirname, '..', '..', '..');

/** A device of a rollout's device list, with its decision. */
interface RolloutDeviceItem {
  mac: string;
  state: string;
  failure_message: string | null;
  decision: { kind: string; reason: string; until: string | null };
}

/** An item of `GET …/devices/:mac/decisions`. */
interface DecisionItem {
  rollout_id: number;
  rollout_name: string;
  kind: string;
  reason: string;
  until: string | null;
}

/**
 * One decision per device and rollout (docs/decisions.md §10.5): a device the rollout will never
 * update (it runs a version that orders after the firmware's, or already runs it) is skipped or
 * confirmed and never holds the rollout open; `offer_when: different` offers any version but the
 * firmware's; the decisions endpoint and `firmledger device why` explain a device. Driven over HTTP
 * as ESP32 devices and operators speak it, on both engines.
 */
describe('rollout decisions: skipped devices, offer_when and why (docs/decisions.md §10.5)', () => {
  let app: TestApp;
  let bearer: string;
  const { nextMac, operator, fleet, plan, rollout, next } = rolloutDriver(() => ({ app, bearer }), '7D');

  before(async () => {
    app = await startTestApp();
    bearer = await app.createOperatorToken('rollout-decisions-spec');
  });
  after(() => app.close());

  /** The rollout's devices with their decisions, by wave then device id. */
  const devicesOf = async (f: Fleet, id: number): Promise<RolloutDeviceItem[]> => {
    const answer = await operator('GET', `/tenants/${f.tenant.name}/rollouts/${id}/devices`);
    assert.equal(answer.status, 200, answer.text);
    return (answer.body as { items: RolloutDeviceItem[] }).items;
  };

  const decisionsOf = async (f: Fleet, mac: string): Promise<DecisionItem[]> => {
    const answer = await operator('GET', `/tenants/${f.tenant.name}/devices/${mac}/decisions`);
    assert.equal(answer.status, 200, answer.text);
    return (answer.body as { items: DecisionItem[] }).items;
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

  it('a member updated by hand to 9.0.0 after the start is skipped at its next poll; the rollout finishes once the other confirms', async () => {
    const f = await fleet(2);
    const [a, b] = f.macs;
    const id = await plan(f);
    assert.equal((await rollout(f, id)).unsettled, 2);

    assert.equal(await next(f, b, '9.0.0'), null, 'anti-rollback: 2.0.0 is never offered to a device on 9.0.0');
    const skipped = await rollout(f, id);
    assert.deepEqual([skipped.unsettled, skipped.devices['skipped'], skipped.status], [1, 1, 'active']);

    await update(f, a, id);
    const done = (await rollout(f, id)) as RolloutBody & { skipped: number };
    assert.deepEqual([done.status, done.confirmed, done.skipped, done.unsettled], ['finished', 1, 1, 0]);

    const items = await devicesOf(f, id);
    const itemB = items.find((item) => item.mac === b)!;
    assert.equal(itemB.state, 'skipped');
    assert.equal(itemB.decision.kind, 'settled');
    assert.match(itemB.decision.reason, /anti-rollback: runs 9\.0\.0, which orders after 2\.0\.0/);
    assert.equal(items.find((item) => item.mac === a)!.decision.kind, 'settled');
  });

  it('at the start, members already on the version are confirmed and members on a newer one skipped, with their reasons', async () => {
    const f = await fleet(4);
    const [a, b, c, d] = f.macs;
    // b already runs 2.0.0 and c runs 3.1; a and d stay on 1.0.0.
    assert.equal(await next(f, b, '2.0.0'), null);
    assert.equal(await next(f, c, '3.1'), null);
    const id = await plan(f, { waves: ['50%', '100%'], success_threshold: 1 });

    const started = (await rollout(f, id)) as RolloutBody & { skipped: number };
    assert.deepEqual([started.targeted, started.confirmed, started.skipped, started.unsettled], [4, 1, 1, 2]);
    const items = await devicesOf(f, id);
    assert.equal(items.find((item) => item.mac === b)!.failure_message, 'already runs 2.0.0');
    assert.equal(items.find((item) => item.mac === c)!.state, 'skipped');

    // Wave 1 is a and b (by device id): b confirmed, so a alone decides it; c, skipped, does not count against wave 2.
    await update(f, a, id);
    assert.equal(await next(f, d, '1.0.0'), String(id), 'wave 1 passed without waiting for anybody it will never update');
    await update(f, d, id);
    assert.equal((await rollout(f, id)).status, 'finished');
  });

  it('offer_when "different" offers the firmware to a device whose version orders after it, and says so in the plan', async () => {
    const f = await fleet(1);
    const [a] = f.macs;
    assert.equal(await next(f, a, 'harness-initial-1.0'), null);
    const id = await plan(f, { offer_when: 'different' });
    const body = (await rollout(f, id)) as RolloutBody & { offer_when: string };
    assert.equal(body.offer_when, 'different');
    assert.equal(await next(f, a, 'harness-initial-1.0'), String(id), '2.0.0 orders before harness-initial-1.0, offered all the same');

    const refused = await operator('POST', `/tenants/${f.tenant.name}/rollouts`, {
      name: 'x',
      firmware_id: f.firmwareId,
      group: 'fleet',
      start_date: '2020-01-01 00:00:00',
      offer_when: 'always',
    });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body, { message: 'offer_when must be one of newer, different', field: 'offer_when' });
  });

  it('explains a device waiting for a closed maintenance window, with when it opens, over HTTP and in firmledger device why', async () => {
    const f = await fleet(1);
    const [a] = f.macs;
    const now = new Date();
    // A one-hour window that opened three hours ago each day: closed now, opens again in 21 hours.
    const opens = new Date(now.getTime() - 3 * 3_600_000);
    const cron = `${opens.getUTCMinutes()} ${opens.getUTCHours()} * * *`;
    const id = await plan(f, { windows: [{ cron, duration_seconds: 3600, time_zone: 'UTC' }] });

    assert.equal(await next(f, a, '1.0.0'), null, 'not offered outside its window');
    const [decision] = await decisionsOf(f, a.toLowerCase());
    assert.equal(decision.rollout_id, id);
    assert.equal(decision.kind, 'wait');
    assert.equal(decision.reason, 'outside the maintenance windows');
    const until = Date.parse(decision.until!);
    const expected = opens.getTime() - (opens.getTime() % 60_000) + 86_400_000;
    assert.equal(until, expected, 'until: the next opening of the window');

    const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'], HOME: process.env['HOME'], ...app.database.env };
    const cli = (...args: string[]) => run(process.execPath, ['bin/firmledger.js', ...args], { cwd: ROOT, env, timeout: 60_000 });
    const text = await cli('device', 'why', a, '--tenant', f.tenant.name);
    assert.equal(text.stdout.trim(), `rollout ${id} "to 2.0.0": wait: outside the maintenance windows, until ${decision.until}`);
    const json = await cli('device', 'why', a, '--tenant', f.tenant.name, '--json');
    assert.deepEqual(JSON.parse(json.stdout), { items: [decision] });
  });

  it('answers 404 for a device the tenant does not have, and no items for one no running rollout names', async () => {
    const f = await fleet(1);
    const missing = await operator('GET', `/tenants/${f.tenant.name}/devices/${nextMac()}/decisions`);
    assert.equal(missing.status, 404);
    assert.deepEqual(await decisionsOf(f, f.macs[0]), []);
  });
});
