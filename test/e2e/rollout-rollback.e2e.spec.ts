import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { LedgerEntry } from '#src/domain/ledger/ledger-entry.entity.js';
import { Subject } from '#src/domain/ledger/ledger.service.js';
import { post, startTestApp, type Answer, type TestApp } from '#test/support/harness.js';
import { rolloutDriver, type Fleet, type RolloutBody } from '#test/support/rollouts.js';
import { runCli, runCliWithInput } from '#test/support/operator.js';
import { openBrowser, screenshots, type TestBrowser } from '#test/support/browser.js';

/** The rollout fields of a rollback policy, as the operator API answers them. */
interface RollbackRollout extends RolloutBody {
  firmware_id: number;
  downgrade: boolean;
  rollback: { firmware_id: number; failed_count: number | null; failed_percentage: number | null; scope: string } | null;
  rollback_rollout_id: number | null;
  rollback_of: number | null;
}

/**
 * Rollback policies (docs/decisions.md §10.4), over HTTP: asvin devices ask for the next rollout
 * and report, operators mark a firmware as a rollback target and plan through the operator API.
 * The fleet runs 1.0.0 and is updated to 2.0.0; the rollback firmware is 1.4.2.
 */
describe('rollout rollback policy (docs/decisions.md §10.4)', () => {
  let app: TestApp;
  let bearer: string;
  const { fleet, operator, plan, next, history } = rolloutDriver(() => ({ app, bearer }), '5E');
  const show = async (f: Fleet, id: number): Promise<RollbackRollout> => {
    const answer = await operator('GET', `/tenants/${f.tenant.name}/rollouts/${id}`);
    assert.equal(answer.status, 200, answer.text);
    return answer.body as RollbackRollout;
  };
  const report = (f: Fleet, kind: 'success' | 'failure', mac: string, id: number, version: string): Promise<Answer> =>
    post(
      `${app.urls.vc}/api/device/${kind}/rollout`,
      { mac, firmware_version: version, rollout_id: String(id), ...(kind === 'failure' ? { message: 'boot loop after flashing' } : {}) },
      f.token,
    );
  /** Publishes 1.4.2 for the fleet's device type; its id. */
  const rollbackFirmware = async (f: Fleet): Promise<number> =>
    (await app.publishFirmware(f.tenant, '1.4.2', Buffer.from(`firmware 1.4.2 of ${f.tenant.name}`))).id;
  const mark = (f: Fleet, id: number, rollbackTarget: unknown): Promise<Answer> =>
    operator('PATCH', `/tenants/${f.tenant.name}/firmware/${id}`, { rollback_target: rollbackTarget });

  /** A console account of `role` (created with the CLI, as operators do) signed in in a new browser; close it after. */
  const signedIn = async (username: string, role: 'admin' | 'viewer'): Promise<TestBrowser> => {
    const password = `${username}-password`;
    const user = await runCliWithInput(app, `${password}\n`, 'operator-user', 'create', username, '--role', role);
    assert.equal(user.code, 0, user.stderr);
    const browser = await openBrowser();
    const { page } = browser;
    await page.goto(`${app.urls.operator}/sign-in`);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Pages' }).waitFor();
    return browser;
  };

  before(async () => {
    app = await startTestApp();
    bearer = await app.createOperatorToken('rollout-rollback-spec');
  });
  after(() => app.close());

  it('only a firmware marked as a rollback target may be named, and the mark is the operator’s', async () => {
    const f = await fleet(2);
    const rb = await rollbackFirmware(f);
    const planned = (rollback: unknown) =>
      operator('POST', `/tenants/${f.tenant.name}/rollouts`, {
        name: 'guarded',
        firmware_id: f.firmwareId,
        group: 'fleet',
        start_date: '2020-01-01 00:00:00',
        rollback,
      });
    let answer = await planned({ firmware_id: rb, failed_percentage: 10 });
    assert.equal(answer.status, 400, answer.text);
    assert.match(
      (answer.body as { message: string }).message,
      /rollback\.firmware_id: firmware \d+ \(1\.4\.2\) is not marked as a rollback target/,
    );
    answer = await planned({ firmware_id: rb });
    assert.equal(answer.status, 400);
    assert.equal((answer.body as { message: string }).message, 'rollback needs a trigger: failed_count, failed_percentage or both');
    answer = await planned({ firmware_id: f.firmwareId, failed_count: 1 });
    assert.equal(answer.status, 400);
    assert.match((answer.body as { message: string }).message, /another firmware than the rollout's/);

    assert.equal((await mark(f, rb, 'yes')).status, 400, 'a boolean or nothing');
    const marked = await mark(f, rb, true);
    assert.equal(marked.status, 200, marked.text);
    assert.equal((marked.body as { rollback_target: boolean }).rollback_target, true);
    const shown = await operator('GET', `/tenants/${f.tenant.name}/firmware/${rb}`);
    assert.equal((shown.body as { rollback_target: boolean }).rollback_target, true, 'kept');
    answer = await planned({ firmware_id: rb, failed_percentage: 10 });
    assert.equal(answer.status, 201, answer.text);
    assert.deepEqual((answer.body as RollbackRollout).rollback, {
      firmware_id: rb,
      failed_count: null,
      failed_percentage: 10,
      scope: 'failed',
    });
  });

  it('fires at 10 % failed: the rollout stops and the failed device is brought back to 1.4.2, confirmed devices stay on 2.0.0', async () => {
    const f = await fleet(10);
    const rb = await rollbackFirmware(f);
    assert.equal((await mark(f, rb, true)).status, 200);
    const id = await plan(f, { rollback: { firmware_id: rb, failed_percentage: 10 } });

    // Eight devices take 2.0.0 and confirm it; a ninth flashes it and fails on it.
    for (const mac of f.macs.slice(0, 8)) {
      assert.equal(await next(f, mac), String(id));
      assert.equal((await report(f, 'success', mac, id, '2.0.0')).status, 200);
    }
    assert.equal((await show(f, id)).status, 'active', 'no failure yet');
    const broken = f.macs[8];
    assert.equal(await next(f, broken), String(id));
    assert.equal((await report(f, 'failure', broken, id, '2.0.0')).status, 200);

    const stopped = await show(f, id);
    assert.equal(stopped.status, 'cancelled');
    assert.equal(stopped.pause_reason, `rollback to firmware ${rb} (10%): 1 of 10 targeted devices failed, fell back or timed out (10%)`);
    assert.ok(stopped.rollback_rollout_id, 'linked to its rollback rollout');
    const rollback = await show(f, stopped.rollback_rollout_id);
    assert.deepEqual(
      [rollback.status, rollback.firmware_id, rollback.rollback_of, rollback.downgrade, rollback.targeted],
      ['active', rb, id, true, 1],
      'a rollout of 1.4.2 to the failed device, started at once',
    );

    // The failed device, on 2.0.0, is offered 1.4.2 and confirms it; confirmed devices are offered nothing.
    assert.equal(await next(f, broken, '2.0.0'), String(rollback.id));
    assert.equal((await report(f, 'success', broken, rollback.id, '1.4.2')).status, 200);
    assert.equal(await next(f, broken, '1.4.2'), null);
    assert.equal(await next(f, f.macs[0], '2.0.0'), null, 'a confirmed device stays on 2.0.0');
    assert.equal(await next(f, f.macs[9]), null, 'the stopped rollout is offered to nobody');
    const done = await show(f, rollback.id);
    assert.deepEqual([done.status, done.devices.confirmed], ['finished', 1]);
    const device = await operator('GET', `/tenants/${f.tenant.name}/devices/${broken.toLowerCase()}`);
    assert.equal((device.body as { firmware_version: string }).firmware_version, '1.4.2');
    const states = (await history(f, broken)).map((row) => [row.rollout_id, row.state]);
    assert.deepEqual(states.sort(), [
      [id, 'failed'],
      [rollback.id, 'confirmed'],
    ]);

    const entries = await app.server.app
      .get(DataSource)
      .getRepository(LedgerEntry)
      .find({ where: { subject: Subject.rollout(id), type: 'rollout.cancelled' } });
    assert.equal(entries.length, 1, 'the rollback is one ledger entry');
    assert.deepEqual((JSON.parse(entries[0].payload) as { rollback: unknown }).rollback, {
      firmware_id: rb,
      failed_count: null,
      failed_percentage: 10,
      scope: 'failed',
      failures: 1,
      targeted: 10,
      percentage: 10,
      rolloutId: rollback.id,
    });
  });

  it('with scope all, every device that took the update is rolled back; devices already on the rollback version count as confirmed', async () => {
    const f = await fleet(4);
    const rb = await rollbackFirmware(f);
    assert.equal((await mark(f, rb, true)).status, 200);
    const id = await plan(f, { rollback: { firmware_id: rb, failed_count: 2, scope: 'all' } });
    await app.createGroup(f.tenant, `rollback of rollout ${id}`, []); // an operator's group with the name the rollback would take
    assert.equal(await next(f, f.macs[0]), String(id));
    assert.equal((await report(f, 'success', f.macs[0], id, '2.0.0')).status, 200);
    // Two devices fail before flashing: they still run 1.4.2 (they were on it).
    for (const mac of f.macs.slice(1, 3)) {
      assert.equal(await next(f, mac, '1.4.2'), String(id));
      assert.equal((await report(f, 'failure', mac, id, '1.4.2')).status, 200);
    }
    const stopped = await show(f, id);
    assert.equal(stopped.status, 'cancelled');
    const rollback = await show(f, stopped.rollback_rollout_id!);
    assert.equal(rollback.targeted, 3, 'the confirmed device and the two failed ones; not the one that never asked');
    const group = await operator('GET', `/tenants/${f.tenant.name}/groups/${(rollback as unknown as { group_id: number }).group_id}`);
    assert.equal((group.body as { name: string }).name, `rollback of rollout ${id} (2)`, 'the name taken is left alone');
    assert.equal(rollback.devices.confirmed, 2, 'the failed devices already run 1.4.2');
    assert.equal(await next(f, f.macs[0], '2.0.0'), String(rollback.id), 'the confirmed device goes back too');
    assert.equal((await report(f, 'success', f.macs[0], rollback.id, '1.4.2')).status, 200);
    assert.equal((await show(f, rollback.id)).status, 'finished');
  });

  it('from the CLI: mark the firmware, plan with --rollback-to and --rollback-when, and read the policy in rollout show', async () => {
    const f = await fleet(2);
    const rb = await rollbackFirmware(f);
    const marked = await runCli(app, 'firmware', 'rollback-target', String(rb), '--tenant', f.tenant.name);
    assert.equal(marked.code, 0, marked.stderr);
    assert.match(marked.stdout, /firmware \d+ \(1\.4\.2, \S+\) is a rollback target/);
    const base = ['rollout', 'create', '--tenant', f.tenant.name, '--name', 'cli', '--firmware', String(f.firmwareId)];
    base.push('--group', 'fleet', '--start', '2020-01-01 00:00:00', '--rollback-to', String(rb), '--rollback-when', '5%');
    const created = await runCli(app, ...base, '--rollback-when', '3', '--json');
    assert.equal(created.code, 0, created.stderr);
    const body = JSON.parse(created.stdout) as RollbackRollout;
    assert.deepEqual(body.rollback, { firmware_id: rb, failed_count: 3, failed_percentage: 5, scope: 'failed' });
    const shown = await runCli(app, 'rollout', 'show', String(body.id), '--tenant', f.tenant.name);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(
      shown.stdout,
      new RegExp(`rollback: to firmware ${rb} \\(the devices that failed\\) once 5% of the targets or 3 devices failed`),
    );
    const unmarked = await runCli(app, 'firmware', 'rollback-target', String(rb), '--off', '--tenant', f.tenant.name);
    assert.equal(unmarked.code, 0, unmarked.stderr);
    const refused = await runCli(app, ...base);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /is not marked as a rollback target/);
  });

  it('in the console: the stopped rollout shows its policy and links to its rollback rollout, which links back', async () => {
    const f = await fleet(2);
    const rb = await rollbackFirmware(f);
    assert.equal((await mark(f, rb, true)).status, 200);
    const id = await plan(f, { name: 'to 2.0.0 with a way back', rollback: { firmware_id: rb, failed_count: 1 } });
    assert.equal(await next(f, f.macs[0]), String(id));
    assert.equal((await report(f, 'failure', f.macs[0], id, '2.0.0')).status, 200);
    const rollbackId = (await show(f, id)).rollback_rollout_id!;

    const browser = await signedIn('rollback-viewer', 'viewer');
    try {
      const { page } = browser;
      await page.goto(`${app.urls.operator}/rollouts/${id}?tenant=${f.tenant.name}`);
      const box = page.getByRole('status', { name: 'Rollback' });
      await box.waitFor();
      const text = await box.innerText();
      assert.match(text, /once 1 device failed, fell back or timed out, stop and bring those devices back to .*1\.4\.2/);
      assert.match(text, new RegExp(`Rolled back by rollout ${rollbackId}`));
      assert.match(await page.locator('.pause-reason').innerText(), /Cancelled by itself[\s\S]*rollback to firmware/);
      await screenshots(page, 'rollout-rolled-back');
      await box.getByRole('link', { name: `rollout ${rollbackId}` }).click();
      await page.getByRole('heading', { name: 'to 2.0.0 with a way back (rollback)' }).waitFor();
      assert.match(await page.getByRole('status', { name: 'Rollback' }).innerText(), new RegExp(`Rolls back rollout ${id}`));
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  });

  it('in the console: an admin plans the rollback in the plan form; a policy without a trigger is refused at its field', async () => {
    const f = await fleet(2);
    const rb = await rollbackFirmware(f);
    assert.equal((await mark(f, rb, true)).status, 200);
    const browser = await signedIn('rollback-admin', 'admin');
    try {
      const { page } = browser;
      await page.goto(`${app.urls.operator}/rollouts?tenant=${f.tenant.name}`);
      await page.getByLabel('Name', { exact: true }).fill('2.0.0 planned in the console');
      await page
        .getByLabel('Firmware', { exact: true })
        .selectOption({ label: `2.0.0 for ${f.tenant.deviceType} (firmware ${f.firmwareId})` });
      await page.getByLabel('Device group').selectOption({ label: 'fleet (2 members)' });
      await page.getByLabel('Start date, UTC (YYYY-MM-DD HH:MM:SS)').fill('2026-01-01 00:00:00');
      await page.getByText('Advanced: schedule and safety').click();
      await page.getByLabel('Stop and roll back when too many devices fail').check();
      await page.getByLabel('Roll back to').selectOption({ label: `1.4.2 for ${f.tenant.deviceType} (firmware ${rb})` });
      await page.getByRole('button', { name: 'Plan rollout' }).click();
      await page.getByText('Give when to roll back: a share of the targets, a number of devices, or both.').waitFor();
      assert.equal(await page.getByLabel('Roll back to').inputValue(), String(rb), 'the choice is kept');
      await page.getByLabel('When this % of the targets failed').fill('5');
      await screenshots(page, 'plan-rollback', true);
      await page.getByRole('button', { name: 'Plan rollout' }).click();
      const box = page.getByRole('status', { name: 'Rollback' });
      await box.waitFor();
      assert.match(
        await box.innerText(),
        /once 5 % of the targets failed, fell back or timed out, stop and bring those devices back to 1\.4\.2/,
      );
      const id = Number(/\/rollouts\/(\d+)/.exec(page.url())?.[1]);
      assert.deepEqual((await show(f, id)).rollback, { firmware_id: rb, failed_count: null, failed_percentage: 5, scope: 'failed' });
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
  });
});
