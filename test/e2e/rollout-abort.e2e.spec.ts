import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { LedgerEntry } from '#src/domain/ledger/ledger-entry.entity.js';
import { Subject } from '#src/domain/ledger/ledger.service.js';
import { DeviceStateService } from '#src/domain/rollout/device-state.service.js';
import { post, startTestApp, type Answer, type TestApp } from '#test/support/harness.js';
import { rolloutDriver, type Fleet, type RolloutBody } from '#test/support/rollouts.js';
import { runCli } from '#test/support/operator.js';

/** The rollout fields of abort criteria and timeouts, as the operator API answers them. */
interface GuardedRollout extends RolloutBody {
  abort_criteria: { failure: string; threshold_percentage: number; min_finished: number; action: string }[];
  timeouts: { offered: number | null; downloading: number | null; installed: number | null };
}

/**
 * Abort criteria and timeouts (docs/decisions.md §10.2), over HTTP: asvin devices ask for the next
 * rollout and report failures, operators plan through the operator API and the CLI; time moves
 * with the app's test clock and the states sweep is run as its timer runs it.
 */
describe('rollout abort criteria and timeouts (docs/decisions.md §10.2)', () => {
  let app: TestApp;
  let bearer: string;
  const { fleet, operator, plan, next, history } = rolloutDriver(() => ({ app, bearer }), '5D');
  const show = async (f: Fleet, id: number): Promise<GuardedRollout> => {
    const answer = await operator('GET', `/tenants/${f.tenant.name}/rollouts/${id}`);
    assert.equal(answer.status, 200, answer.text);
    return answer.body as GuardedRollout;
  };
  /** The state the ledger recorded with the latest entry of `type` about rollout `id`. */
  const ledgerState = async (id: number, type: string): Promise<Record<string, unknown> | null> => {
    const entries = await app.server.app
      .get(DataSource)
      .getRepository(LedgerEntry)
      .find({ where: { subject: Subject.rollout(id), type }, order: { seq: 'DESC' }, take: 1 });
    return entries.length === 0 ? null : (JSON.parse(entries[0].payload) as Record<string, unknown>);
  };
  const failure = (f: Fleet, mac: string, id: number): Promise<Answer> =>
    post(
      `${app.urls.vc}/api/device/failure/rollout`,
      { mac, firmware_version: '1.0.0', rollout_id: String(id), message: 'flash write failed' },
      f.token,
    );

  before(async () => {
    app = await startTestApp();
    bearer = await app.createOperatorToken('rollout-abort-spec');
  });
  after(() => app.close());

  it('devices offered and silent past the offered timeout are timed_out; a timed_out criterion pauses the rollout', async () => {
    const f = await fleet(4);
    const criterion = { failure: 'timed_out', threshold_percentage: 50, min_finished: 2, action: 'pause' };
    const id = await plan(f, { abort_criteria: [criterion], timeouts: { offered: 120 } });
    let shown = await show(f, id);
    assert.deepEqual(shown.abort_criteria, [criterion]);
    assert.deepEqual(shown.timeouts, { offered: 120, downloading: null, installed: null });

    assert.equal(await next(f, f.macs[0]), String(id));
    assert.equal(await next(f, f.macs[1]), String(id));
    // Offers are written behind, at the latest offer's time of a batch: reading the rollout writes them now.
    assert.equal((await show(f, id)).devices.offered, 2);
    app.clock.advance(90);
    f.token = await app.login(f.tenant);
    assert.equal(await next(f, f.macs[2]), String(id));
    const sweeper = app.server.app.get(DeviceStateService);
    await sweeper.sweep();
    assert.equal((await show(f, id)).devices.timed_out, 0, 'not yet 120 s offered');

    // 121 s after the first two offers: those two time out; the third (offered 31 s ago) and the
    // pending fourth do not.
    app.clock.advance(31);
    f.token = await app.login(f.tenant);
    await sweeper.sweep();
    shown = await show(f, id);
    assert.deepEqual(
      [shown.devices.timed_out, shown.devices.offered, shown.devices.pending, shown.devices.failed],
      [2, 1, 1, 0],
      JSON.stringify(shown.devices),
    );
    assert.equal(shown.status, 'paused');
    assert.equal(shown.pause_reason, 'abort criterion timed_out 50% (min 2 finished, pause): 2 of 2 finished devices timed out (100%)');
    assert.equal(shown.unsettled, 2);
    const [state] = (await history(f, f.macs[0])).filter((row) => row.rollout_id === id);
    assert.deepEqual(
      [state.state, state.failure_message, state.history.at(-1)?.state],
      ['timed_out', 'timed out: offered for more than 120 s (timeouts.offered)', 'timed_out'],
    );
    const recorded = await ledgerState(id, 'rollout.paused');
    assert.ok(recorded, 'the pause is a ledger entry');
    assert.deepEqual(recorded['abort'], { criterion, finished: 2, failures: 2, percentage: 100 });
    assert.equal(recorded['pauseReason'], shown.pause_reason);

    // A timed-out device is not offered the rollout again until a retry sends it back to pending.
    const retried = await operator('POST', `/tenants/${f.tenant.name}/rollouts/${id}/retry`);
    assert.equal(retried.status, 200, retried.text);
    assert.equal((retried.body as { retried: number }).retried, 2);
    assert.equal((await show(f, id)).devices.timed_out, 0);
  });

  it('a cancel criterion on failed reports cancels the rollout once min_finished devices finished', async () => {
    const f = await fleet(5);
    const criterion = { failure: 'failed', threshold_percentage: 60, min_finished: 3, action: 'cancel' };
    const id = await plan(f, { abort_criteria: [criterion], error_threshold: 0.9 });
    for (const mac of f.macs.slice(0, 3)) assert.equal(await next(f, mac), String(id));
    assert.equal((await failure(f, f.macs[0], id)).status, 200);
    assert.equal((await failure(f, f.macs[1], id)).status, 200);
    assert.equal((await show(f, id)).status, 'active', '2 finished: below min_finished 3');
    assert.equal((await failure(f, f.macs[2], id)).status, 200);
    const shown = await show(f, id);
    assert.equal(shown.status, 'cancelled');
    assert.equal(shown.pause_reason, 'abort criterion failed 60% (min 3 finished, cancel): 3 of 3 finished devices failed (100%)');
    const recorded = await ledgerState(id, 'rollout.cancelled');
    assert.ok(recorded, 'the cancellation is a ledger entry');
    assert.deepEqual(recorded['abort'], { criterion, finished: 3, failures: 3, percentage: 100 });
    assert.equal(recorded['status'], 'cancelled');
    assert.equal(await next(f, f.macs[3]), null, 'a cancelled rollout is offered to nobody');
  });

  it('refuses bad criteria and timeouts with a 400 naming the field', async () => {
    const f = await fleet(1);
    const good = { failure: 'failed', threshold_percentage: 10, min_finished: 20, action: 'pause' };
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ abort_criteria: [{ ...good, failure: 'installed' }] }, 'abort_criteria', /^abort_criteria\[0\]\.failure must be one of/],
      [{ abort_criteria: [{ ...good, threshold_percentage: 0 }] }, 'abort_criteria', /^abort_criteria\[0\]\.threshold_percentage/],
      [{ abort_criteria: [good, { ...good, min_finished: 0 }] }, 'abort_criteria', /^abort_criteria\[1\]\.min_finished/],
      [{ abort_criteria: [{ ...good, action: 'stop' }] }, 'abort_criteria', /^abort_criteria\[0\]\.action/],
      [{ abort_criteria: { failure: 'failed' } }, 'abort_criteria', /^abort_criteria must be a list/],
      [{ timeouts: { offered: 59 } }, 'timeouts', /^timeouts\.offered must be whole seconds from 60 to 604800/],
      [{ timeouts: { installed: 604801 } }, 'timeouts', /^timeouts\.installed/],
      [{ timeouts: { confirmed: 600 } }, 'timeouts', /^timeouts\.confirmed is not a timeout/],
    ];
    for (const [extra, field, message] of cases) {
      const answer = await operator('POST', `/tenants/${f.tenant.name}/rollouts`, {
        name: 'bad',
        firmware_id: f.firmwareId,
        group: 'fleet',
        start_date: '2020-01-01 00:00:00',
        ...extra,
      });
      assert.equal(answer.status, 400, JSON.stringify(extra));
      const body = answer.body as { message: string; field: string };
      assert.equal(body.field, field, JSON.stringify(extra));
      assert.match(body.message, message);
    }
  });

  it('the CLI plans abort criteria and timeouts and shows them', async () => {
    const f = await fleet(1);
    const base = ['rollout', 'create', '--tenant', f.tenant.name, '--name', 'guarded', '--firmware', String(f.firmwareId)];
    const created = await runCli(
      app,
      ...base,
      '--group',
      'fleet',
      '--start',
      '2020-01-01 00:00:00',
      '--abort',
      'failed:10%:min=20:pause',
      '--abort',
      'all:30%:min=50:cancel',
      '--timeout',
      'offered=1h',
      '--timeout',
      'installed=30m',
      '--json',
    );
    assert.equal(created.code, 0, created.stderr);
    const body = JSON.parse(created.stdout) as GuardedRollout;
    assert.deepEqual(body.abort_criteria, [
      { failure: 'failed', threshold_percentage: 10, min_finished: 20, action: 'pause' },
      { failure: 'all', threshold_percentage: 30, min_finished: 50, action: 'cancel' },
    ]);
    assert.deepEqual(body.timeouts, { offered: 3600, downloading: null, installed: 1800 });
    const shown = await runCli(app, 'rollout', 'show', String(body.id), '--tenant', f.tenant.name);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(
      shown.stdout,
      /abort criteria: pause when failed reaches 10% of at least 20 finished; cancel when all reaches 30% of at least 50 finished/,
    );
    assert.match(shown.stdout, /timeouts: offered 3600s, installed 1800s/);
    assert.match(shown.stdout, /timed_out/, 'the waves table has a column for timed_out');

    const badSyntax = await runCli(app, ...base, '--group', 'fleet', '--start', '2020-01-01 00:00:00', '--abort', 'failed-10');
    assert.notEqual(badSyntax.code, 0);
    assert.match(badSyntax.stderr, /--abort must read <failure>:<percent>%:min=<finished>:<action>, such as failed:10%:min=20:pause/);
    const badValue = await runCli(app, ...base, '--group', 'fleet', '--start', '2020-01-01 00:00:00', '--abort', 'failed:10%:min=0:pause');
    assert.notEqual(badValue.code, 0);
    assert.match(badValue.stderr, /abort_criteria\[0\]\.min_finished must be a whole number/);
    const badTimeout = await runCli(app, ...base, '--group', 'fleet', '--start', '2020-01-01 00:00:00', '--timeout', 'offered=30s');
    assert.notEqual(badTimeout.code, 0);
    assert.match(badTimeout.stderr, /timeouts\.offered must be whole seconds from 60/);
  });
});
