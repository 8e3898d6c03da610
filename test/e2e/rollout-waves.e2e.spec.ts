import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { post, startTestApp, type TestApp } from '#test/support/harness.js';
import { rolloutDriver, type Fleet, type RolloutBody } from '#test/support/rollouts.js';
import { runCli } from '#test/support/operator.js';

/** Runs `work` over `items`, `limit` at a time. */
async function inParallel<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]);
      }
    }),
  );
  return results;
}

/**
 * Waves, thresholds, approval and retry (docs/decisions.md §10), driven over HTTP: devices
 * ask for the next rollout and report as the ESP32 does (success with the version it ran, then a
 * poll after the reboot); operators read and act through the operator API.
 */
describe('rollout waves and thresholds (docs/decisions.md §10)', () => {
  let app: TestApp;
  let bearer: string;
  const { nextMac, fleet, operator, plan, rollout, next, ledgerTypes } = rolloutDriver(() => ({ app, bearer }), '5B');
  /** The macs among `macs` that are offered rollout `id` now. */
  const offeredAmong = async (f: Fleet, macs: readonly string[], id: number): Promise<string[]> => {
    const answers = await inParallel(macs, 10, (mac) => next(f, mac));
    return macs.filter((_, i) => answers[i] === String(id));
  };
  /** An ESP32 update: success with the old version, then after the reboot a poll on the new one (`ok`) or the old one (`fall back`). */
  const update = async (f: Fleet, mac: string, id: number, boots: boolean): Promise<void> => {
    const report = await post(
      `${app.urls.vc}/api/device/success/rollout`,
      { mac, firmware_version: '1.0.0', rollout_id: String(id) },
      f.token,
    );
    assert.deepEqual(report.body, { message: 'Successfully inserted!' });
    await next(f, mac, boots ? '2.0.0' : '1.0.0');
  };

  before(async () => {
    app = await startTestApp();
    bearer = await app.createOperatorToken('rollout-waves-spec');
  });
  after(() => app.close());

  it('1,000 devices in three waves: wave 1 passes, wave 2 crosses its error threshold and the rollout pauses itself', async () => {
    const f = await fleet(1000);
    const id = await plan(f, { waves: ['10%', '30%', '100%'], success_threshold: 0.8, error_threshold: 0.1, approval: 'auto' });
    let now = await rollout(f, id);
    assert.deepEqual(
      now.waves.map((w) => [w.bound, w.status, w.devices.targeted]),
      [
        ['10%', 'running', 100],
        ['30%', 'waiting', 200],
        ['100%', 'waiting', 700],
      ],
    );

    // Only wave 1 is offered: the first 100 devices in the stable order.
    const wave1 = await offeredAmong(f, f.macs, id);
    assert.equal(wave1.length, 100);
    // 95 boot the new image, 5 fall back (5 % ≤ 10 %); wave 2 starts by itself at 80 % confirmed.
    await inParallel(wave1, 10, (mac) => update(f, mac, id, wave1.indexOf(mac) % 20 !== 19));
    now = await rollout(f, id);
    assert.deepEqual(
      [now.status, now.current_wave, now.waves[0].status, now.waves[0].devices.confirmed, now.waves[0].devices.fell_back],
      ['active', 2, 'passed', 95, 5],
    );
    assert.equal(now.pause_reason, null);

    const rest = f.macs.filter((mac) => !wave1.includes(mac));
    const wave2 = await offeredAmong(f, rest, id);
    assert.equal(wave2.length, 200);
    assert.equal(new Set([...wave1, ...wave2]).size, 300);
    // In wave 2, 21 of 200 fall back (10.5 % > 10 %): the 21st pauses the rollout.
    for (const mac of wave2.slice(0, 20)) await update(f, mac, id, false);
    assert.equal((await rollout(f, id)).status, 'active', '20 of 200 is not above 10 %');
    await update(f, wave2[20], id, false);
    now = await rollout(f, id);
    assert.deepEqual(
      [now.status, now.current_wave, now.pause_reason],
      ['paused', 2, 'wave 2: 21 of 200 devices failed or fell back (10.5%), over the error threshold 10%'],
    );
    assert.deepEqual(now.waves[1].devices, {
      targeted: 200,
      pending: 0,
      offered: 179,
      downloading: 0,
      installed: 0,
      confirmed: 0,
      failed: 0,
      fell_back: 21,
      timed_out: 0,
      skipped: 0,
    });
    assert.equal(now.waves[2].status, 'waiting');
    assert.equal(await next(f, wave2[30]), null, 'a paused rollout is offered to nobody');
    const types = await ledgerTypes(id);
    assert.deepEqual(
      types.filter((type) => type !== 'rollout.device_confirmed'),
      ['rollout.created', 'rollout.started', 'rollout.wave_started', 'rollout.wave_started', 'rollout.paused'],
    );
    assert.equal(types.filter((type) => type === 'rollout.device_confirmed').length, 95);
  });

  it('manual approval: the next wave waits for an operator; approve starts it', async () => {
    const f = await fleet(4);
    const id = await plan(f, { waves: [1, '100%'], success_threshold: 1, approval: 'manual' });
    const [first, ...others] = f.macs;
    assert.deepEqual(await offeredAmong(f, f.macs, id), [first]);
    const early = await operator('POST', `/tenants/${f.tenant.name}/rollouts/${id}/approve`);
    assert.deepEqual([early.status, early.body], [409, { message: `Rollout ${id} has no wave waiting for approval` }]);
    await update(f, first, id, true);
    let now = await rollout(f, id);
    assert.deepEqual([now.current_wave, now.awaiting_approval, now.waves[0].status], [1, true, 'passed']);
    assert.deepEqual(await offeredAmong(f, others, id), [], 'not before approval');
    const approved = await operator('POST', `/tenants/${f.tenant.name}/rollouts/${id}/approve`);
    assert.equal(approved.status, 200, approved.text);
    now = approved.body as RolloutBody;
    assert.deepEqual([now.current_wave, now.awaiting_approval, now.waves[1].status], [2, false, 'running']);
    assert.deepEqual(await offeredAmong(f, others, id), others);
    assert.ok((await ledgerTypes(id)).includes('rollout.wave_passed'));
  });

  it('retry: failed and fell-back devices are offered again; the rollout finishes when all are settled', async () => {
    const f = await fleet(4);
    const id = await plan(f, { error_threshold: 0.4 });
    const [good, bad, broken, slow] = f.macs;
    assert.deepEqual(await offeredAmong(f, f.macs, id), f.macs);
    await update(f, good, id, true);
    await update(f, bad, id, false);
    const failed = await post(
      `${app.urls.vc}/api/device/failure/rollout`,
      { mac: broken, firmware_version: '1.0.0', rollout_id: String(id) },
      f.token,
    );
    assert.deepEqual(failed.body, { message: 'Failure recorded' });
    let now = await rollout(f, id);
    assert.deepEqual([now.status, now.updated, now.pending, now.devices.failed, now.devices.fell_back], ['paused', 1, 1, 1, 1]);
    assert.equal(now.pause_reason, 'wave 1: 2 of 4 devices failed or fell back (50%), over the error threshold 40%');

    const retried = await operator('POST', `/tenants/${f.tenant.name}/rollouts/${id}/retry`);
    assert.equal(retried.status, 200, retried.text);
    const answer = retried.body as { retried: number; rollout: RolloutBody };
    assert.deepEqual([answer.retried, answer.rollout.status, answer.rollout.devices.pending], [2, 'paused', 2]);
    assert.equal((await operator('POST', `/tenants/${f.tenant.name}/rollouts/${id}/resume`)).status, 200);
    assert.equal((await rollout(f, id)).pause_reason, null, 'resume clears the reason');
    assert.deepEqual(await offeredAmong(f, f.macs, id), [bad, broken, slow], 'a confirmed device never again');
    for (const mac of [bad, broken, slow]) await update(f, mac, id, true);
    now = await rollout(f, id);
    assert.deepEqual([now.status, now.updated, now.pending], ['finished', 4, 0]);
    const history = await operator('GET', `/tenants/${f.tenant.name}/devices/${broken}/rollouts`);
    const [row] = history.body as { state: string; attempts: number; history: { state: string; message: string | null }[] }[];
    assert.deepEqual(
      [row.state, row.attempts, row.history.map((h) => h.state)],
      ['confirmed', 2, ['pending', 'offered', 'failed', 'pending', 'offered', 'installed', 'confirmed']],
    );
    assert.equal(row.history[3].message, 'retried');
    assert.ok((await ledgerTypes(id)).includes('rollout.retried'));
  });

  it('a device that joins the group mid-rollout waits for the last wave, then is offered', async () => {
    const f = await fleet(2);
    const id = await plan(f, { waves: [1, '100%'], success_threshold: 1 });
    const late = nextMac();
    assert.equal((await post(`${app.urls.vc}/api/device/register`, { mac: late, firmware_version: '1.0.0' }, f.token)).status, 200);
    assert.ok((await operator('POST', `/tenants/${f.tenant.name}/groups/fleet/members`, { macs: [late] })).status < 300);
    assert.equal((await rollout(f, id)).waves[1].devices.targeted, 2, 'counted in the last wave');
    assert.equal(await next(f, late), null, 'the last wave has not started');
    const [first] = await offeredAmong(f, f.macs, id);
    await update(f, first, id, true);
    assert.equal(await next(f, late), String(id));
    const devices = await operator('GET', `/tenants/${f.tenant.name}/rollouts/${id}/devices?wave=2`);
    assert.equal(devices.status, 200, devices.text);
    const page = devices.body as { items: { mac: string; state: string }[]; total: number };
    assert.deepEqual(
      page.items.map((d) => [d.mac, d.state]),
      [
        [f.macs[1], 'pending'],
        [late, 'offered'],
      ],
    );
  });

  it('refuses bad wave plans with 400 naming the field', async () => {
    const f = await fleet(1);
    for (const [extra, message] of [
      [{ waves: [] }, 'waves must list 1 to 20 wave bounds, such as 10% then 100%; this lists 0'],
      [{ waves: ['10%', 'abc'] }, 'wave 2 ("abc") is neither a share like "10%" nor a whole number of devices like 50'],
      [{ waves: ['30%', '10%'] }, 'wave 2 ("10%") is below the wave before it: each wave counts the devices of the waves before it too'],
      [{ waves: '10%' }, 'waves must be a list of wave bounds, such as ["10%", "100%"]'],
      [{ success_threshold: 1.5 }, 'success_threshold must be a share from 0 to 1'],
      [{ error_threshold: -1 }, 'error_threshold must be a share from 0 to 1, or null'],
      [{ approval: 'sometimes' }, 'approval must be one of auto, manual'],
    ] as const) {
      const answer = await operator('POST', `/tenants/${f.tenant.name}/rollouts`, {
        name: 'bad',
        firmware_id: f.firmwareId,
        group: 'fleet',
        start_date: '2020-01-01 00:00:00',
        ...extra,
      });
      // The operator API's answer names the field beside the message.
      assert.deepEqual([answer.status, answer.body], [400, { message, field: Object.keys(extra)[0] }], JSON.stringify(extra));
    }
  });

  it('the CLI plans waves, shows the per-wave table and the pause reason, retries and reads a device history', async () => {
    const f = await fleet(4);
    const cli = async (...args: string[]): Promise<string> => {
      const outcome = await runCli(app, ...args, '--tenant', f.tenant.name);
      assert.equal(outcome.code, 0, outcome.stderr);
      return outcome.stdout;
    };
    const created = await cli(
      'rollout',
      'create',
      '--name',
      'cli waves',
      '--firmware',
      String(f.firmwareId),
      '--group',
      'fleet',
      '--start',
      '2020-01-01 00:00:00',
      '--wave',
      '50%',
      '--wave',
      '100%',
      '--success-threshold',
      '100%',
      '--error-threshold',
      '0.25',
      '--approval',
      'manual',
      '--json',
    );
    const { id } = JSON.parse(created) as { id: number };
    await cli('rollout', 'start', String(id));
    const wave1 = await offeredAmong(f, f.macs, id);
    assert.deepEqual(wave1, f.macs.slice(0, 2));
    await update(f, wave1[0], id, true);
    await update(f, wave1[1], id, false);
    const shown = await cli('rollout', 'show', String(id));
    assert.match(shown, /^rollout \d+ "cli waves": paused,/);
    assert.match(shown, /waves 50%, 100%; success threshold 100%, error threshold 25%, approval manual; current wave 1/);
    assert.match(shown, /paused by itself: wave 1: 1 of 2 devices failed or fell back \(50%\), over the error threshold 25%/);
    assert.match(shown, /wave +bound +status +targeted +pending +offered +downloading +installed +confirmed +failed +fell_back/);
    assert.match(shown, /^1 +50% +running +2 +0 +0 +0 +0 +1 +0 +1 +0 +0$/m);
    assert.match(shown, /^2 +100% +waiting +2 +2 +0 +0 +0 +0 +0 +0 +0 +0$/m);
    assert.match(await cli('rollout', 'retry', String(id)), /1 devices back to pending; it is paused \(resume it/);
    const history = await cli('rollout', 'history', wave1[1].toLowerCase());
    assert.match(history, /to 2\.0\.0: pending, wave 1, attempts 1/);
    assert.match(history, /fell_back +reported 1\.0\.0, not 2\.0\.0/);
    assert.match(history, /pending +retried/);
    const refused = await runCli(app, 'rollout', 'approve', String(id), '--tenant', f.tenant.name);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /has no wave waiting for approval/);
  });
});
