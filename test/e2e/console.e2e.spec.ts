import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { Page, Request } from 'playwright-core';
import { simulatedMacs } from '#src/cli/simulate/macs.js';
import { openBrowser, screenshots, type TestBrowser } from '#test/support/browser.js';
import { request, startTestApp, type TestApp } from '#test/support/harness.js';
import { runCli, runCliWithInput } from '#test/support/operator.js';

const ADMIN_PASSWORD = 'correct horse battery';
const VIEWER_PASSWORD = 'read only and happy';
const FLEET = 200;
/** The two-wave rollout: wave 1 is a quarter of the group (`25%`), wave 2 the rest. */
const ROLLOUT = '1.1.0 to field test';
const WAVE_1 = FLEET / 4;
/** What the simulator's failing devices report. */
const FAILURE = 'simulated: the new image failed its self-test';
/** Counts of no device in any state. */
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
type Counts = typeof NONE;
/** A rollout as the operator API answers it, the fields this spec reads. */
interface RolloutAnswer {
  status: string;
  devices: Counts;
  waves: { wave: number; status: string; devices: Counts }[];
  pause_reason: string | null;
}

/** Counts as the legend shows them (its labels in words). */
const counted = ({ fell_back, timed_out, ...rest }: Counts) => ({ ...rest, 'fell back': fell_back, 'timed out': timed_out });

/** The rollout page's progress sentence for these counts. */
function progressText(c: Counts): string {
  const bad = [c.failed ? `${c.failed} failed` : '', c.fell_back ? `${c.fell_back} fell back` : ''].filter(Boolean);
  return `${c.confirmed} of ${c.targeted} devices confirmed (${Math.round((100 * c.confirmed) / c.targeted)} %)${bad.length ? `; ${bad.join(', ')}` : ''}`;
}
const MAC_PREFIX = '02:F1:ED';

/** What the browser's console may say because a step provokes a refusal on purpose (Chromium logs failed requests). */
/**
 * In the page: the form controls without an accessible name (no label, no aria-label), as the
 * start of their HTML. Buttons are named by their text.
 */
const UNLABELLED_CONTROLS = `[...document.querySelectorAll('input, select, textarea, button')]
  .filter((el) => el.tagName === 'BUTTON'
    ? el.textContent.trim() === '' && !el.getAttribute('aria-label')
    : el.labels.length === 0 && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby'))
  .map((el) => el.outerHTML.slice(0, 80))`;

/** Waits until every "Loading …" line of the page is gone. */
async function settled(page: Page): Promise<void> {
  const loading = page.getByRole('status').filter({ hasText: /^Loading/ });
  for (let waited = 0; (await loading.count()) > 0; waited += 50) {
    assert.ok(waited < 20_000, 'the page is still loading after 20 s');
    await page.waitForTimeout(50);
  }
}

const provoked = (status: number) => `console: Failed to load resource: the server responded with a status of ${status}`;

/**
 * The operator console in Debian's Chromium, against the real app: an admin signs in, creates a
 * tenant and a device key, uploads firmware, creates a group from a CSV file, plans a rollout and
 * watches it move while `firmledger simulate` updates devices, pauses and resumes it, and checks
 * the ledger; a viewer sees no control that changes anything and the API refuses it anyway.
 * Every control has a label, every page fits a phone, and the console logs no error.
 */
describe('operator console in a browser', () => {
  let app: TestApp;
  let admin: TestBrowser;
  let page: Page;
  let operator: string;
  const expectedErrors: string[] = [];
  const keys = { customer: '', device: '', second: '' };
  /** A device that failed in wave 1 (then retried). */
  let failedMac = '';
  /** A device that fell back in wave 1 (then retried). */
  let fellBackMac = '';
  const firmware = randomBytes(1_500_000);
  const macs = simulatedMacs(MAC_PREFIX, FLEET);
  /** Every page of the console, once there is something on each. */
  const pages = [
    '/',
    '/devices',
    `/devices/${macs[0]}`,
    '/keys',
    '/firmware',
    '/groups',
    '/groups/field-test',
    '/rollouts',
    '/rollouts/1',
    '/rollouts/2',
    '/ledger',
  ];

  /** A console path under the operator base URL. */
  const at = (path: string) => `${operator}${path}`;
  const heading = (name: string | RegExp) => page.getByRole('heading', { level: 1, name });
  const nav = (name: string) => page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name, exact: true }).click();
  /** The text of the rollout page's progress sentence. */
  const progress = () => page.locator('.progress-line').innerText();
  /** Waits until the rollout page's progress sentence says `text`. */
  const progressShows = (text: string) => page.locator('.progress-line', { hasText: text }).waitFor();
  /** The numbers of the rollout's legend, by state: `{ pending: 150, …, targeted: 200 }`. */
  const legend = async (name = `Progress of ${ROLLOUT}, per state`) => {
    const items = await page.getByRole('list', { name }).getByRole('listitem').allInnerTexts();
    return Object.fromEntries(
      items.map((item) => {
        const [, state, devices] = /^(.+?) ([\d,]+)/.exec(item.replace(/\s+/g, ' ').trim())!;
        return [state, Number(devices.replace(/,/g, ''))];
      }),
    );
  };
  /** The rollout as the API answers it now (the page's own session reads it). */
  const rolloutNow = () => page.evaluate(async () => (await fetch('tenants/acme/rollouts/1')).json()) as Promise<RolloutAnswer>;
  /** Waits until wave `n`'s section shows this status and these counts in its legend. */
  const waveShows = async (n: number, status: string, counts: Counts) => {
    const wave = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: new RegExp(`^Wave ${n}: `) }) });
    await wave.locator('.badge', { hasText: new RegExp(`^${status}$`) }).waitFor();
    const want = counted(counts);
    for (let waited = 0; ; waited += 100) {
      const shown = await legend(`Progress of wave ${n}, per state`);
      if (JSON.stringify(Object.entries(shown).sort()) === JSON.stringify(Object.entries(want).sort())) return;
      assert.ok(waited < 10_000, `wave ${n} shows ${JSON.stringify(shown)}, not ${JSON.stringify(want)}`);
      await page.waitForTimeout(100);
    }
  };
  /** A new device key for ESP32 devices, created through the admin's session. */
  const newKey = () =>
    page.evaluate(async () => {
      const answer = await fetch('tenants/acme/device-keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ device_type: 'ESP32' }),
      });
      return ((await answer.json()) as { key: string }).key;
    });
  /**
   * A second device key for the simulator. A key takes each login timestamp once, near the
   * current time: the fleet's logins are shared between two keys so that neither runs out.
   */
  const secondKey = async () => (keys.second ||= await newKey());
  /** `firmledger simulate` as a separate process against the app, as a person would run it; `key` is the device key. */
  const simulate = async (devices: number, key = keys.device, options: string[] = []) => {
    // The devices sign logins with the real time: the app's clock follows it for this scenario.
    app.clock.ms = Date.now();
    const outcome = await runCli(
      app,
      'simulate',
      '--customer-key',
      keys.customer,
      '--device-key',
      key,
      '--devices',
      String(devices),
      '--concurrency',
      '4',
      '--mac-prefix',
      MAC_PREFIX,
      '--auth-url',
      app.urls.auth,
      '--vc-url',
      app.urls.vc,
      '--bc-url',
      app.urls.bc,
      '--ipfs-url',
      app.urls.ipfs,
      '--json',
      ...options,
    );
    assert.equal(outcome.code, 0, outcome.stderr || outcome.stdout);
    // The summary's keys are snake_case since the CLI's JSON mode; read either spelling.
    const summary = JSON.parse(outcome.stdout) as { updated: number; up_to_date?: number; upToDate?: number };
    return { updated: summary.updated, upToDate: summary.up_to_date ?? summary.upToDate ?? NaN };
  };

  before(async () => {
    app = await startTestApp();
    operator = app.urls.operator;
    for (const [name, password, role] of [
      ['admin', ADMIN_PASSWORD, 'admin'],
      ['viewer', VIEWER_PASSWORD, 'viewer'],
    ]) {
      const created = await runCliWithInput(app, `${password}\n`, 'operator-user', 'create', name, '--role', role);
      assert.equal(created.code, 0, created.stderr);
    }
    admin = await openBrowser();
    page = admin.page;
    await admin.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(operator).origin });
  });
  after(async () => {
    await admin?.close();
    await app?.close();
  });

  it('sends a signed-out visitor to the sign-in page, refuses a wrong password in words, and signs the admin in', async () => {
    await page.goto(at('/devices'));
    await heading('Sign in to the firmledger console').waitFor();
    assert.equal(new URL(page.url()).pathname, '/sign-in');
    await screenshots(page, 'sign-in');
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill('not the password');
    expectedErrors.push(provoked(401));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Wrong username or password' }).waitFor();
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByLabel('Password').press('Enter');
    // Back where the visitor was going.
    await heading('Devices').waitFor();
    assert.equal(new URL(page.url()).pathname, '/devices');
    await page.getByText('There is no tenant yet').waitFor();
  });

  it('creates a tenant and a device key, each key shown once with a copy button', async () => {
    await nav('Tenants & keys');
    await heading('Tenants & keys').waitFor();
    await page.getByLabel('New tenant name').fill('acme');
    await page.getByRole('button', { name: 'Create tenant' }).click();
    const customer = page.getByRole('region', { name: 'Customer key of acme' });
    await customer.getByText('You will not see this again.').waitFor();
    keys.customer = await customer.getByRole('textbox', { name: 'Customer key of acme' }).inputValue();
    assert.match(keys.customer, /^[A-Za-z0-9_-]{32}$/);
    await customer.getByRole('button', { name: 'Copy' }).click();
    await customer.getByText('Copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), keys.customer);
    await customer.getByRole('button', { name: 'I have kept it: close' }).click();
    await customer.waitFor({ state: 'detached' });
    assert.ok(!(await page.content()).includes(keys.customer), 'the customer key is gone from the page');
    // The new tenant is the one the console works on (once the tenant list has been read again).
    await page
      .getByLabel('Tenant', { exact: true })
      .locator('option:checked', { hasText: /^acme$/ })
      .waitFor({ state: 'attached' });
    assert.equal(await page.getByLabel('Tenant', { exact: true }).inputValue(), 'acme');

    await page.getByLabel('Device type of the new key').fill('ESP32');
    await page.getByRole('button', { name: 'Create device key' }).click();
    const device = page.getByRole('region', { name: 'Device key for ESP32 devices of acme' });
    await device.getByText('You will not see this again.').waitFor();
    keys.device = await device.getByRole('textbox').inputValue();
    assert.match(keys.device, /^[A-Za-z0-9]{22}$/);
    await device.getByRole('button', { name: 'I have kept it: close' }).click();
    const row = page.getByRole('row').filter({ hasText: 'ESP32' });
    await row.waitFor();
    assert.ok(!(await page.content()).includes(keys.device), 'the list shows the device key only in part');
    await screenshots(page, 'keys');
  });

  it('uploads a firmware with a progress bar, and lists its size, MD5, SHA-256 and CID', async () => {
    await nav('Firmware');
    await heading('Firmware').waitFor();
    await page
      .getByLabel('Firmware binary')
      .setInputFiles({ name: 'fw-1.1.0.bin', mimeType: 'application/octet-stream', buffer: firmware });
    await page.getByLabel('Version', { exact: true }).fill('1.1.0');
    await page.getByLabel('Device type', { exact: true }).fill('ESP32');
    // A slow uplink (about 2 s for this file), so the bar can be seen moving.
    const cdp = await admin.context.newCDPSession(page);
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 20, downloadThroughput: -1, uploadThroughput: 750_000 });
    await page.getByRole('button', { name: 'Upload and publish' }).click();
    const bar = page.getByRole('progressbar', { name: 'Uploading fw-1.1.0.bin' });
    await bar.waitFor();
    const seen = new Set<string>();
    while (await bar.isVisible()) {
      seen.add(String(await bar.evaluate((el) => (el as unknown as { value: number }).value).catch(() => 'gone')));
      await page.waitForTimeout(100);
    }
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    assert.ok(seen.size >= 2, `the bar moved: ${[...seen].join(', ')}`);
    await page.getByRole('status').filter({ hasText: 'Published 1.1.0 for ESP32' }).waitFor();
    const item = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: /^1\.1\.0/ }) });
    const text = await item.innerText();
    assert.match(text, /1\.4 MiB \(1,500,000 bytes\)/);
    assert.ok(text.includes(createHash('md5').update(firmware).digest('hex')), text);
    assert.ok(text.includes(createHash('sha256').update(firmware).digest('hex')), text);
    assert.match(text, /CID\s+Qm[1-9A-HJ-NP-Za-km-z]{44}/);
    await screenshots(page, 'firmware');
  });

  it('creates a group from a CSV file, and names a bad mac in words', async () => {
    await nav('Groups');
    await heading('Groups').waitFor();
    await page.getByLabel('Group name').fill('field-test');
    // A header, then macs in two notations, a second column the console ignores.
    const csv = ['mac,name', ...macs.map((mac, i) => `${i % 2 ? mac.toLowerCase().replace(/:/g, '-') : mac},sim-${i + 1}`)].join('\r\n');
    await page
      .getByLabel('or a CSV file (macs or controller ids in the first column)')
      .setInputFiles({ name: 'fleet.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Create group' }).click();
    await heading('Group field-test').waitFor();
    await page.getByRole('heading', { name: `${FLEET} members` }).waitFor();
    await screenshots(page, 'group');

    expectedErrors.push(provoked(400));
    const pasted = page.getByLabel('Paste macs or controller ids (one per line, or separated by spaces)').first();
    await pasted.fill('AC:67:B2:01:02:03\nzz/not/a/mac');
    await page.getByRole('button', { name: 'Add members' }).click();
    const refusal = page
      .getByRole('alert')
      .filter({ hasText: '"zz/not/a/mac" is not a device identifier: a hardware address (EUI-48 or EUI-64) or a controller id' });
    await refusal.waitFor();
    // The API's answer names the field (`macs`): the refusal is shown at the macs, tied to them.
    assert.equal(await pasted.getAttribute('aria-invalid'), 'true');
    assert.equal(await pasted.getAttribute('aria-describedby'), await refusal.getAttribute('id'));
    await screenshots(page, 'group-members-refused');
    await page.getByRole('heading', { name: `${FLEET} members` }).waitFor();
  });

  it('plans a two-wave rollout, its waves and thresholds checked in words, and starts it', async () => {
    // The fleet comes online on 1.0.0 first: the waves split the devices targeted at the start.
    const online = await simulate(FLEET);
    assert.deepEqual({ updated: online.updated, upToDate: online.upToDate }, { updated: 0, upToDate: FLEET });
    await nav('Groups');
    await page.getByRole('link', { name: 'field-test' }).waitFor();
    await screenshots(page, 'groups');
    await nav('Rollouts');
    await heading('Rollouts').waitFor();
    await page.getByLabel('Name', { exact: true }).fill(ROLLOUT);
    await page.getByLabel('Firmware', { exact: true }).selectOption({ label: '1.1.0 for ESP32 (firmware 1)' });
    await page.getByLabel('Device group').selectOption({ label: `field-test (${FLEET} members)` });
    await page.getByLabel('Priority (1 is most urgent)').fill('1');
    await page.getByLabel('Start date, UTC (YYYY-MM-DD HH:MM:SS)').fill('2026-01-01 00:00:00');
    // Mistakes are named next to their field, before anything is sent.
    await page.getByLabel('Waves', { exact: true }).fill('25%, ten');
    await page.getByLabel('Error threshold (% of a wave failed or fell back)').fill('150');
    await page.getByRole('button', { name: 'Plan rollout' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'wave 2 ("ten") is neither a share like "10%" nor a whole number of devices like 50' })
      .waitFor();
    await page.getByRole('alert').filter({ hasText: 'The error threshold must be a percentage from 0 to 100, like 80 or 12.5.' }).waitFor();
    assert.equal(await page.getByLabel('Waves', { exact: true }).getAttribute('aria-invalid'), 'true');
    await screenshots(page, 'rollouts-plan-errors');
    // Wave 1: a quarter of the group; wave 2: the rest, once an admin approves it.
    await page.getByLabel('Waves', { exact: true }).fill('25%, 100%');
    await page.getByLabel('Success threshold (% of a wave confirmed)').fill('90');
    await page.getByLabel('Error threshold (% of a wave failed or fell back)').fill('10');
    await page.getByLabel('Next wave').selectOption({ label: 'waits for an admin to approve it' });
    // A date the form's pattern lets through but the API refuses: shown at the field the answer names.
    expectedErrors.push(provoked(400));
    const startDate = page.getByLabel('Start date, UTC (YYYY-MM-DD HH:MM:SS)');
    await startDate.fill('2026-02-30 00:00:00');
    await page.getByRole('button', { name: 'Plan rollout' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'start_date must be a real UTC date and time "YYYY-MM-DD HH:MM:SS"' });
    await refusal.waitFor();
    assert.equal(await startDate.getAttribute('aria-invalid'), 'true');
    assert.ok((await startDate.getAttribute('aria-describedby'))?.split(' ').includes((await refusal.getAttribute('id'))!));
    assert.equal(await page.getByRole('alert').count(), 1, 'the refusal is shown once, at its field');
    await screenshots(page, 'rollouts-plan-refused');
    await startDate.fill('2026-01-01 00:00:00');
    await page.getByRole('button', { name: 'Plan rollout' }).click();
    await page.getByText('Rollout planned as a draft.').waitFor();
    await page.locator('.badge', { hasText: 'draft' }).waitFor();
    const plan = (await page.getByRole('region', { name: 'Plan' }).innerText()).replace(/\s+/g, ' ');
    for (const fact of [
      'Waves 25%, 100%',
      'Success threshold 90 % of a wave confirmed',
      'Error threshold pauses once over 10 % of a wave failed or fell back',
      'Next wave starts when an admin approves it',
    ]) {
      assert.ok(plan.includes(fact), `${fact} in ${plan}`);
    }
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await page.locator('.badge', { hasText: 'active' }).waitFor();
    await progressShows(`0 of ${FLEET} devices confirmed (0 %); last change never.`);
    assert.deepEqual(await legend(), counted({ ...NONE, pending: FLEET, targeted: FLEET }));
    await waveShows(1, 'running', { ...NONE, pending: WAVE_1, targeted: WAVE_1 });
    await waveShows(2, 'waiting', { ...NONE, pending: FLEET - WAVE_1, targeted: FLEET - WAVE_1 });
    await nav('Rollouts');
    await page.getByRole('link', { name: ROLLOUT }).waitFor();
    await screenshots(page, 'rollouts');
    await page.getByRole('link', { name: ROLLOUT }).click();
    await page.locator('.badge', { hasText: 'active' }).waitFor();
  });

  it('watches wave 1 move while devices update, and sees the rollout pause itself when too many of its devices fail', async () => {
    await page.evaluate('window.sameDocument = true');
    // An eighth of the fleet asks, all of it in wave 1; a fifth of the devices fail their update and
    // a tenth come back on their old version (the same devices every run).
    const run = await simulate(FLEET / 8, await secondKey(), ['--fail-rate', '0.2', '--fallback-rate', '0.1']);
    const r = await rolloutNow();
    assert.equal(r.status, 'paused', JSON.stringify(r));
    assert.ok(run.updated > 0 && run.updated === r.devices.confirmed, `${JSON.stringify(run)} ${JSON.stringify(r.devices)}`);
    const wave1 = r.waves[0].devices;
    assert.ok(wave1.failed > 0 && wave1.fell_back > 0 && wave1.failed + wave1.fell_back > WAVE_1 / 10, JSON.stringify(wave1));
    assert.match(
      r.pause_reason ?? '',
      new RegExp(`^wave 1: \\d+ of ${WAVE_1} devices failed or fell back \\([\\d.]+%\\), over the error threshold 10%$`),
    );
    await page.locator('.badge', { hasText: 'paused' }).waitFor();
    const reason = page.getByRole('status').filter({ has: page.getByRole('heading', { name: 'Paused by itself' }) });
    assert.equal(await reason.locator('p').first().innerText(), `${r.pause_reason}.`);
    await progressShows(progressText(r.devices));
    assert.deepEqual(await legend(), counted(r.devices));
    await waveShows(1, 'running', wave1);
    await waveShows(2, 'waiting', { ...NONE, pending: FLEET - WAVE_1, targeted: FLEET - WAVE_1 });
    // The failed devices, each with what it reported; the fallen-back ones.
    const list = page.getByRole('region', { name: 'Devices of this rollout' });
    const rowsOf = async (state: string, count: number) => {
      await page.getByLabel('State', { exact: true }).selectOption(state);
      await list.getByText(count === 1 ? '1 device' : `${count} devices`, { exact: true }).waitFor();
      return (await list.getByRole('row').allInnerTexts()).slice(1).map((row) => row.split('\t'));
    };
    const failed = await rowsOf('failed', wave1.failed);
    // The Why column: the decision of a settled device names its state and what it reported.
    for (const row of failed)
      assert.deepEqual([row[2], row[3], row[4], row[6]], ['1', 'failed', '1', `failed: ${FAILURE}`], row.join(' | '));
    failedMac = failed[0][0];
    const fellBack = await rowsOf('fell_back', wave1.fell_back);
    for (const row of fellBack) assert.deepEqual([row[2], row[3]], ['1', 'fell back'], row.join(' | '));
    fellBackMac = fellBack[0][0];
    await page.getByLabel('State', { exact: true }).selectOption('');
    assert.equal(await page.evaluate('window.sameDocument'), true, 'no reload');
    await screenshots(page, 'rollout-paused');
  });

  it('retries the failed devices and resumes; wave 1 passes its threshold and waits for approval; the admin approves wave 2', async () => {
    const before = await rolloutNow();
    const retriable = before.devices.failed + before.devices.fell_back;
    await page.getByRole('button', { name: `Retry failed devices (${retriable})` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `${retriable} devices sent back to pending: they are offered the rollout again once it is resumed.` })
      .waitFor();
    assert.equal((await rolloutNow()).status, 'paused', 'a retry leaves a paused rollout paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('.badge', { hasText: 'active' }).waitFor();
    await page.getByRole('heading', { name: 'Paused by itself' }).waitFor({ state: 'detached' });

    // The devices of wave 1 (and as many of wave 2) ask again, none fails: wave 1 completes, wave 2 waits for the admin.
    const run = await simulate(FLEET / 2, await secondKey());
    assert.equal(run.updated, WAVE_1 - before.devices.confirmed);
    await progressShows(`${WAVE_1} of ${FLEET} devices confirmed (25 %)`);
    await waveShows(1, 'passed', { ...NONE, confirmed: WAVE_1, targeted: WAVE_1 });
    await waveShows(2, 'waiting', { ...NONE, pending: FLEET - WAVE_1, targeted: FLEET - WAVE_1 });
    await page
      .getByRole('status')
      .filter({
        hasText: 'Waiting for approval: wave 1 reached its success threshold (90 % confirmed). Wave 2 starts when an admin approves it.',
      })
      .waitFor();
    await screenshots(page, 'rollout-approval');
    // The overview shows it too, its bar counting confirmed devices.
    await nav('Overview');
    const underWay = page.getByRole('region', { name: 'Rollouts under way' });
    await underWay.getByText(`${WAVE_1} of ${FLEET} confirmed (25 %) · waiting for approval`).waitFor();
    assert.equal(await underWay.getByRole('progressbar', { name: `Progress of ${ROLLOUT}` }).getAttribute('aria-valuenow'), String(WAVE_1));
    await screenshots(page, 'overview-rollout');
    await underWay.getByRole('link', { name: ROLLOUT }).click();

    await page.getByRole('button', { name: 'Approve wave 2' }).click();
    await page.getByRole('status').filter({ hasText: 'Wave 2 started.' }).waitFor();
    await waveShows(2, 'running', { ...NONE, pending: FLEET - WAVE_1, targeted: FLEET - WAVE_1 });
  });

  it('pauses wave 2 (no device is offered it), resumes it, and takes all 200 devices through', async () => {
    await page.evaluate('window.sameDocument = true');
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.locator('.badge', { hasText: 'paused' }).waitFor();
    const paused = await simulate(FLEET / 2);
    assert.deepEqual({ updated: paused.updated, upToDate: paused.upToDate }, { updated: 0, upToDate: FLEET / 2 });
    await page.waitForTimeout(2_500); // a refresh later, still where it was
    assert.match(await progress(), new RegExp(`^${WAVE_1} of ${FLEET} devices confirmed`));

    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('.badge', { hasText: 'active' }).waitFor();
    // Half the fleet asks first: the bar moves part of the way.
    const half = await simulate(FLEET / 2, await secondKey());
    const r = await rolloutNow();
    assert.equal(r.devices.confirmed, WAVE_1 + half.updated);
    await progressShows(progressText(r.devices));
    await waveShows(2, 'running', r.waves[1].devices);
    const bar = page.getByRole('progressbar', { name: `Progress of ${ROLLOUT}` });
    assert.equal(await bar.getAttribute('aria-valuenow'), String(r.devices.confirmed));
    await screenshots(page, 'rollout');

    assert.equal((await simulate(FLEET)).updated, FLEET - r.devices.confirmed);
    await progressShows(`${FLEET} of ${FLEET} devices confirmed (100 %)`);
    await page.locator('.badge', { hasText: 'finished' }).waitFor();
    await waveShows(2, 'passed', { ...NONE, confirmed: FLEET - WAVE_1, targeted: FLEET - WAVE_1 });
    assert.equal(await page.getByRole('group', { name: 'Rollout actions' }).count(), 0, 'a finished rollout offers no action');
    assert.equal(await page.evaluate('window.sameDocument'), true, 'no reload');
    await screenshots(page, 'rollout-finished');
  });

  it('verifies the ledger and names who made each change', async () => {
    await nav('Ledger');
    await heading('Ledger').waitFor();
    await page.getByRole('button', { name: 'Verify the ledger' }).click();
    const verified = await page.getByRole('status').filter({ hasText: 'Verified: all' }).innerText();
    const total = Number(/all ([\d,]+) entries/.exec(verified)![1].replace(/,/g, ''));
    assert.ok(total > FLEET, verified);
    // Newest first: the rollout finished by itself (the last device's report): no operator did it.
    const finished = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'rollout.finished', exact: true }) });
    assert.match(await finished.innerText(), /\t—\t/);
    await screenshots(page, 'ledger');
    // The ledger itself, through the API the page reads: these changes, in this order.
    const changes = await page.evaluate(async () => {
      const names: string[] = [];
      for (let page = 1; ; page++) {
        const answer = (await (await fetch(`ledger/entries?order=asc&per_page=100&page=${page}`)).json()) as { items: { type: string }[] };
        const rows = answer.items;
        names.push(...rows.map((row) => row.type));
        if (rows.length < 100) return names;
      }
    });
    const firstOf = (change: string): number => changes.indexOf(change);
    const expected = ['tenant.created', 'device-key.created', 'firmware.published', 'group.created', 'rollout.created', 'rollout.started'];
    assert.deepEqual(
      [...expected].sort((a, b) => firstOf(a) - firstOf(b)),
      expected,
      `ledger order: ${expected.map((c) => `${c}@${firstOf(c)}`).join(', ')}`,
    );
    await page.getByLabel('Order').selectOption({ label: 'oldest first' });
    await page.getByRole('cell', { name: 'tenant.created', exact: true }).waitFor();
    // Oldest first, page by page (the fleet's registrations come between the group and the rollout):
    // each change on the page its place in the ledger puts it, with who made it.
    // The rollout paused itself (over the error threshold): no operator did that either.
    const pager = page.getByRole('navigation', { name: 'Pages of entries' });
    let shownPage = 1;
    let after = -1;
    for (const [change, actor] of [
      ['tenant.created', 'user:admin'],
      ['device-key.created', 'user:admin'],
      ['firmware.published', 'user:admin'],
      ['group.created', 'user:admin'],
      ['rollout.created', 'user:admin'],
      ['rollout.started', 'user:admin'],
      ['rollout.paused', '—'],
      ['rollout.retried', 'user:admin'],
      ['rollout.resumed', 'user:admin'],
      ['rollout.wave_started', 'user:admin'],
    ]) {
      const index = changes.indexOf(change, after + 1);
      assert.ok(index > after, `${change} is in the ledger after the change before it`);
      after = index;
      const onPage = Math.floor(index / 50) + 1;
      while (shownPage < onPage) {
        await page.getByRole('button', { name: 'Next page' }).click();
        shownPage++;
        await pager.getByText(new RegExp(`page ${shownPage} of`)).waitFor();
      }
      const row = page
        .getByRole('row')
        .filter({ has: page.getByRole('cell', { name: String(index + 1), exact: true }) })
        .filter({ has: page.getByRole('cell', { name: change, exact: true }) });
      const text = await row.innerText();
      assert.ok(text.includes(`\t${actor}\t`), `${change} by ${actor}`);
    }
  });

  it('shows the fleet on the overview, and a device found by its mac with its rollout history', async () => {
    await nav('Overview');
    await heading('Overview of acme').waitFor();
    const fleet = page.getByRole('region', { name: 'Fleet' });
    await fleet.getByText('Devices per firmware version and device type').waitFor();
    const summary = await page.evaluate(async () => (await fetch('tenants/acme/fleet')).json());
    const figures = await fleet.locator('dl.figures').innerText();
    assert.match(figures, new RegExp(`Devices\\s+${FLEET}\\b`));
    const rows = await fleet.getByRole('listitem').allInnerTexts();
    assert.deepEqual(
      rows.map((row) => row.replace(/\s+/g, ' ').trim()),
      (summary as { versions: { firmware_version: string; device_type: string; devices: number }[] }).versions.map(
        (v) => `${v.firmware_version} · ${v.device_type} ${v.devices} (${Math.round((100 * v.devices) / FLEET)} %)`,
      ),
    );
    await page.getByRole('region', { name: 'Rollouts under way' }).getByText('No rollout is active or paused.').waitFor();
    await screenshots(page, 'overview');

    await nav('Devices');
    await page.getByLabel('Search mac, controller id or name').fill(macs[FLEET - 1].slice(-5).replace(':', ''));
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('1 device', { exact: true }).waitFor();
    await screenshots(page, 'devices');
    await page.getByRole('link', { name: macs[FLEET - 1] }).click();
    await heading(`Device ${macs[FLEET - 1]}`).waitFor();
    const history = page.getByRole('region', { name: 'Rollout history' });
    const entry = history.getByRole('listitem').filter({ has: page.getByRole('heading', { name: ROLLOUT }) });
    assert.match(
      (await entry.locator('p').first().innerText()).replace(/\s+/g, ' '),
      /^Version 1\.1\.0, wave 2: this device is confirmed\.$/,
    );
    // Each state it went through, with its time: targeted when the rollout started, confirmed by its report.
    const states = (
      await entry
        .getByRole('list', { name: `States of ${macs[FLEET - 1]} in ${ROLLOUT}` })
        .getByRole('listitem')
        .allInnerTexts()
    ).map((line) => line.replace(/\s+/g, ' ').trim());
    assert.ok(states.length >= 3, states.join(' | '));
    assert.match(states[0], /^pending \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/, states.join(' | '));
    assert.match(states.at(-1)!, /^confirmed \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/, states.join(' | '));
    assert.ok(
      states.some((line) => line.startsWith('offered ')),
      states.join(' | '),
    );
    await screenshots(page, 'device');

    // Devices that failed or fell back in wave 1, were retried and then confirmed: their histories
    // name what went wrong, and when.
    for (const [mac, bad] of [
      [failedMac, 'failed'],
      [fellBackMac, 'fell back'],
    ]) {
      await page.goto(at(`/devices/${mac}?tenant=acme`));
      await heading(`Device ${mac}`).waitFor();
      const retried = page
        .getByRole('region', { name: 'Rollout history' })
        .getByRole('listitem')
        .filter({ has: page.getByRole('heading', { name: ROLLOUT }) });
      assert.match(
        (await retried.locator('p').first().innerText()).replace(/\s+/g, ' '),
        /^Version 1\.1\.0, wave 1: this device is confirmed after 2 attempts\.$/,
      );
      const steps = (
        await retried
          .getByRole('list', { name: `States of ${mac} in ${ROLLOUT}` })
          .getByRole('listitem')
          .allInnerTexts()
      ).map((line) => line.replace(/\s+/g, ' ').trim());
      const where = steps.findIndex((line) => line.startsWith(`${bad} `));
      assert.ok(where > 0, steps.join(' | '));
      assert.match(steps[where], new RegExp(`^${bad} \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC — .+`), steps.join(' | '));
      if (bad === 'failed') assert.ok(steps[where].endsWith(`— ${FAILURE}`), steps[where]);
      assert.match(steps[where + 1], /^pending /, 'the retry sent it back to pending');
      assert.match(steps.at(-1)!, /^confirmed /, steps.join(' | '));
      if (bad === 'failed') await screenshots(page, 'device-retried');
    }
  });

  it('adds a hawkBit device, its target token shown once, and shows it as a DDI device', async () => {
    await nav('Devices');
    await heading('Devices').waitFor();
    await page.getByText('Add a hawkBit device (SWUpdate, rauc-hawkbit-updater, Zephyr…)').click();
    await page.getByLabel('Controller id of the new device').fill('console-pump-1');
    await page.getByLabel('Device type of the new device').fill('pump-board');
    await page.getByRole('button', { name: 'Add device' }).click();
    const shown = page.getByRole('region', { name: 'Target token of console-pump-1' });
    await shown.getByText('You will not see this again.').waitFor();
    const token = await shown.getByRole('textbox').inputValue();
    assert.match(token, /^[A-Za-z0-9_-]{32}$/);
    await shown.getByRole('button', { name: 'I have kept it: close' }).click();
    assert.ok(!(await page.content()).includes(token), 'the target token is gone from the page');
    const polled = await request('GET', `${app.urls.ddi}/acme/controller/v1/console-pump-1`, {
      headers: { authorization: `TargetToken ${token}` },
    });
    assert.equal(polled.status, 200, 'the device polls with the token the console showed');
    await page.getByLabel('Search mac, controller id or name').fill('console-pump');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('link', { name: 'console-pump-1' }).click();
    await heading('Device console-pump-1').waitFor();
    await page.getByText('hawkBit DDI, with a target token').waitFor();
    await page.getByRole('region', { name: 'Attributes' }).getByText('None reported.').waitFor();
  });

  it('creates a hawkBit gateway key with its checkbox; the list shows which key is one, and only that key reaches DDI devices', async () => {
    await nav('Tenants & keys');
    await heading('Tenants & keys').waitFor();
    await page.getByLabel('Device type of the new key').fill('pump-board');
    await page.getByLabel('hawkBit gateway token (speaks for every DDI device of the tenant)').check();
    await page.getByRole('button', { name: 'Create device key' }).click();
    const shown = page.getByRole('region', { name: 'Device key for pump-board devices of acme' });
    await shown.getByText('it speaks for every DDI device of the tenant, so give it only to the gateway', { exact: false }).waitFor();
    const gateway = await shown.getByRole('textbox').inputValue();
    await shown.getByRole('button', { name: 'I have kept it: close' }).click();
    const cells = async (type: string) =>
      (await page.getByRole('row').filter({ hasText: type }).getByRole('cell').allInnerTexts()).map((cell) => cell.trim());
    await page.getByRole('row').filter({ hasText: 'pump-board' }).waitFor();
    assert.deepEqual((await cells('pump-board')).slice(2, 4), ['pump-board', 'yes']);
    assert.deepEqual((await cells('ESP32')).slice(2, 4), ['ESP32', 'no']);
    assert.equal(await page.getByLabel('hawkBit gateway token (speaks for every DDI device of the tenant)').isChecked(), false, 'reset');
    const poll = (authorization: string) =>
      request('GET', `${app.urls.ddi}/acme/controller/v1/console-pump-1`, { headers: { authorization } });
    assert.equal((await poll(`GatewayToken ${gateway}`)).status, 200, 'the gateway key reaches the DDI device');
    assert.equal((await poll(`GatewayToken ${keys.device}`)).status, 401, 'the ESP32 fleet key does not');
  });

  /**
   * Keyset paging of the device list and of a group's members (docs/decisions.md §9): the user
   * walks every page with "Next page" and back with "Previous page" and sees each item once, in the
   * list's order; the address keeps the page (`?after=<cursor>&page=<n>`); every request past the
   * first page asks with `after=` (the last item of the page before), never with a page number.
   */
  describe('lists paged by cursor', () => {
    /** The GET requests of the API path `path` the page makes while `during` runs, as their query parameters. */
    const requestsOf = async <T>(path: string, during: () => Promise<T>): Promise<[T, URLSearchParams[]]> => {
      const asked: URLSearchParams[] = [];
      const listen = (r: Request) => {
        const url = new URL(r.url());
        if (r.method() === 'GET' && url.pathname.endsWith(path)) asked.push(url.searchParams);
      };
      page.on('request', listen);
      try {
        return [await during(), asked];
      } finally {
        page.off('request', listen);
      }
    };
    /** A list of the page, by its table's region name and the plural its pager uses. */
    const list = (region: string, what: string) => ({
      pager: page.getByRole('navigation', { name: `Pages of ${what}` }),
      /**
       * Waits until the pager says page `n` of a list of `total` at `perPage` a page, with the
       * page's own answer (not the one before it, which stays while the next is fetched), and
       * reads the identifiers in the table's first column.
       */
      async at(n: number, perPage: number, total: number): Promise<string[]> {
        const where = `${(n - 1) * perPage + 1}–${Math.min(total, n * perPage)} of ${total} ${what} · page ${n} of ${Math.ceil(total / perPage)}`;
        await page.locator(`nav[aria-label="Pages of ${what}"][aria-busy="false"]`).getByText(where, { exact: true }).waitFor();
        return page.getByRole('region', { name: region }).locator('tbody tr td:first-child').allInnerTexts();
      },
    });
    type List = ReturnType<typeof list>;
    /** The page's address: its cursor and page number. */
    const position = () => {
      const query = new URL(page.url()).searchParams;
      return { after: query.get('after'), page: query.get('page') };
    };
    /**
     * From the first page of `shown`, every page with "Next page" to the last (which has none
     * after it), then back to the first with "Previous page": the pages as seen going forward.
     */
    const walk = async (shown: List, perPage: number, expected: string[]): Promise<string[][]> => {
      const pages = Math.ceil(expected.length / perPage);
      const seen: string[][] = [];
      for (let n = 1; n <= pages; n++) {
        if (n > 1) await shown.pager.getByRole('button', { name: 'Next page' }).click();
        seen.push(await shown.at(n, perPage, expected.length));
        assert.deepEqual(position(), n === 1 ? { after: null, page: null } : { after: seen[n - 2].at(-1), page: String(n) });
      }
      assert.ok(await shown.pager.getByRole('button', { name: 'Next page' }).isDisabled(), 'no page after the last');
      assert.deepEqual(seen.flat(), expected, 'each item once, in order');
      for (let n = pages - 1; n >= 1; n--) {
        await shown.pager.getByRole('button', { name: 'Previous page' }).click();
        assert.deepEqual(await shown.at(n, perPage, expected.length), seen[n - 1], `page ${n} again`);
        assert.deepEqual(position(), n === 1 ? { after: null, page: null } : { after: seen[n - 2].at(-1), page: String(n) });
      }
      assert.ok(await shown.pager.getByRole('button', { name: 'Previous page' }).isDisabled(), 'no page before the first');
      return seen;
    };
    /**
     * The requests of a walk over `seen` (the first page was asked before it) asked by cursor only:
     * every page past the first after the last item of the page before, and never a page number.
     */
    const byCursor = (asked: URLSearchParams[], seen: string[][]) => {
      assert.deepEqual(asked.filter((query) => query.has('page')).map(String), [], 'no request asks for a page number');
      assert.deepEqual(
        [...new Set(asked.map((query) => query.get('after')).filter((after) => after !== null))].sort(),
        seen
          .slice(0, -1)
          .map((rows) => rows.at(-1)!)
          .sort(),
        'each page past the first is asked after the last item of the page before',
      );
    };

    it('walks the devices with Next and Previous, filtered too: each device once, in order; a reload or a link keeps the page', async () => {
      const devices = page.getByRole('region', { name: 'Devices of acme, by identifier' });
      const shown = list('Devices of acme, by identifier', 'devices');
      await nav('Devices');
      await heading('Devices').waitFor();
      // The list in the API's order, read in one page by offset: the fleet and the hawkBit device.
      const all = await page.evaluate(async () =>
        ((await (await fetch('tenants/acme/devices?per_page=500')).json()) as { items: { mac: string }[] }).items.map((d) => d.mac),
      );
      assert.deepEqual([...all].sort(), [...macs, 'console-pump-1'].sort());
      const [seen, asked] = await requestsOf('/tenants/acme/devices', () => walk(shown, 50, all));
      byCursor(asked, seen);
      assert.equal(seen.length, 5);

      // A new page size or filter starts over at the first page.
      await shown.pager.getByRole('button', { name: 'Next page' }).click();
      await shown.at(2, 50, all.length);
      await page.getByLabel('Per page').selectOption('25');
      await shown.at(1, 25, all.length);
      assert.deepEqual(position(), { after: null, page: null });
      await shown.pager.getByRole('button', { name: 'Next page' }).click();
      await shown.at(2, 25, all.length);
      await page.getByLabel('Device type', { exact: true }).fill('ESP32');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      const esp32 = all.filter((mac) => macs.includes(mac));
      await shown.at(1, 25, esp32.length);
      assert.deepEqual(position(), { after: null, page: null });

      // Filtered, 25 a page: 8 full pages, the last with no page after it.
      const [filtered, askedFiltered] = await requestsOf('/tenants/acme/devices', () => walk(shown, 25, esp32));
      byCursor(askedFiltered, filtered);
      for (const query of askedFiltered) assert.deepEqual([query.get('device_type'), query.get('per_page')], ['ESP32', '25']);

      // A reload shows the same page, and Previous still knows the page before.
      const next = shown.pager.getByRole('button', { name: 'Next page' });
      await next.click();
      await shown.at(2, 25, esp32.length);
      await next.click();
      assert.deepEqual(await shown.at(3, 25, esp32.length), filtered[2]);
      await screenshots(page, 'devices-page-3');
      await page.reload();
      assert.deepEqual(await shown.at(3, 25, esp32.length), filtered[2], 'page 3 after a reload');
      assert.equal(await page.getByLabel('Device type', { exact: true }).inputValue(), 'ESP32');
      await shown.pager.getByRole('button', { name: 'Previous page' }).click();
      assert.deepEqual(await shown.at(2, 25, esp32.length), filtered[1]);
      await next.click();
      await shown.at(3, 25, esp32.length);
      await next.click();
      assert.deepEqual(await shown.at(4, 25, esp32.length), filtered[3]);
      // The browser's Back and Forward walk the pages too.
      await page.goBack();
      assert.deepEqual(await shown.at(3, 25, esp32.length), filtered[2], 'Back');
      await page.goForward();
      assert.deepEqual(await shown.at(4, 25, esp32.length), filtered[3], 'Forward');

      // Opened from a link, page 4 does not know the cursor of page 3: its button says it goes to the first page.
      const link = page.url();
      await page.goto(at('/?tenant=acme'));
      await heading('Overview of acme').waitFor();
      await page.goto(link);
      assert.deepEqual(await shown.at(4, 25, esp32.length), filtered[3], 'page 4 from a link');
      assert.equal(await shown.pager.getByRole('button', { name: 'Previous page' }).count(), 0);
      await screenshots(page, 'devices-page-4-from-a-link', true);
      await shown.pager.getByRole('button', { name: 'First page' }).click();
      assert.deepEqual(await shown.at(1, 25, esp32.length), filtered[0]);
      assert.deepEqual(position(), { after: null, page: null });
      assert.equal(await devices.getByRole('link', { name: 'console-pump-1' }).count(), 0);
    });

    it("walks a group's members with Next and Previous: each member once, in order; a reload keeps the page", async () => {
      const shown = list('Members of field-test', 'members');
      await page.goto(at('/groups/field-test?tenant=acme'));
      await heading('Group field-test').waitFor();
      const members = await page.evaluate(async () =>
        (
          (await (await fetch('tenants/acme/groups/field-test?per_page=500')).json()) as { member_macs: { items: { mac: string }[] } }
        ).member_macs.items.map((m) => m.mac),
      );
      assert.deepEqual([...members].sort(), [...macs].sort());
      const [seen, asked] = await requestsOf('/tenants/acme/groups/field-test', () => walk(shown, 50, members));
      byCursor(asked, seen);
      assert.equal(seen.length, 4);

      const next = shown.pager.getByRole('button', { name: 'Next page' });
      await next.click();
      await shown.at(2, 50, members.length);
      await next.click();
      assert.deepEqual(await shown.at(3, 50, members.length), seen[2]);
      assert.deepEqual(position(), { after: seen[1].at(-1), page: '3' });
      await screenshots(page, 'group-members-page-3');
      await page.reload();
      assert.deepEqual(await shown.at(3, 50, members.length), seen[2], 'page 3 after a reload');
      await shown.pager.getByRole('button', { name: 'Previous page' }).click();
      assert.deepEqual(await shown.at(2, 50, members.length), seen[1]);
    });
  });

  it('plans a rollout with a window in Europe/Berlin, a ramp, an abort criterion and timeouts; a bad cron expression is shown at its field', async () => {
    const NIGHTLY = '1.1.0 at night in Berlin';
    await nav('Rollouts');
    await heading('Rollouts').waitFor();
    await page.getByLabel('Name', { exact: true }).fill(NIGHTLY);
    await page.getByLabel('Firmware', { exact: true }).selectOption({ label: '1.1.0 for ESP32 (firmware 1)' });
    await page.getByLabel('Device group').selectOption({ label: `field-test (${FLEET} members)` });
    await page.getByLabel('Start date, UTC (YYYY-MM-DD HH:MM:SS)').fill('2026-03-01 00:00:00');
    await page.getByText('Advanced: schedule and safety').click();
    await page.getByRole('button', { name: 'Add a maintenance window' }).click();
    const window1 = page.getByRole('group', { name: 'Maintenance window 1' });
    const cron = window1.getByLabel('Opens at (cron: minute hour day month weekday)');
    // Hour 25: five fields, as the form wants, but no time of day; the server's cron reader refuses it.
    await cron.fill('0 25 * * *');
    await window1.getByLabel('Open for').fill('3');
    await window1.getByLabel("Unit of window 1's length").selectOption({ label: 'hours' });
    await window1.getByLabel('Time zone (IANA)').fill('Europe/Berlin');
    await page.getByLabel('Limit new offers a minute (ramp)').check();
    await page.getByLabel('New offers a minute at first').fill('10');
    await page.getByLabel('Factor at each step').fill('2');
    await page.getByLabel('Most new offers a minute').fill('500');
    await page.getByLabel('A step each time this many more devices').fill('100');
    await page.getByLabel("What the ramp's step counts").selectOption({ label: 'confirmed it' });
    await page.getByRole('button', { name: 'Add an abort criterion' }).click();
    const abort1 = page.getByRole('group', { name: 'Abort criterion 1' });
    await abort1.getByLabel('When devices').selectOption({ label: 'failed' });
    await abort1.getByLabel('reach (% of the finished devices)').fill('10');
    await abort1.getByLabel('once at least this many finished').fill('20');
    await abort1.getByLabel('then').selectOption({ label: 'pause the rollout' });
    await page.getByLabel('Longest offered').fill('1');
    await page.getByLabel('Unit of the offered timeout').selectOption({ label: 'hours' });
    await page.getByLabel('Longest installed').fill('30');
    await page.getByLabel('Unit of the installed timeout').selectOption({ label: 'minutes' });
    await screenshots(page, 'rollouts-plan-advanced', true);
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    assert.ok(overflow <= 0, `the open form is ${overflow} px wider than the window`);

    expectedErrors.push(provoked(400));
    await page.getByRole('button', { name: 'Plan rollout' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: /^windows\[0\]\.cron is not a valid cron expression/ });
    await refusal.waitFor();
    // At the cron expression, tied to it; once; and nothing else typed is lost.
    assert.equal(await cron.getAttribute('aria-invalid'), 'true');
    assert.ok((await cron.getAttribute('aria-describedby'))?.split(' ').includes((await refusal.getAttribute('id'))!));
    assert.equal(await page.getByRole('alert').count(), 1, 'the refusal is shown once, at its field');
    assert.equal(await window1.getByLabel('Time zone (IANA)').getAttribute('aria-invalid'), null);
    await screenshots(page, 'rollouts-plan-advanced-refused', true);
    assert.deepEqual(
      [
        await page.getByLabel('Name', { exact: true }).inputValue(),
        await cron.inputValue(),
        await window1.getByLabel('Open for').inputValue(),
        await window1.getByLabel('Time zone (IANA)').inputValue(),
        await page.getByLabel('New offers a minute at first').inputValue(),
        await page.getByLabel('Most new offers a minute').inputValue(),
        await abort1.getByLabel('reach (% of the finished devices)').inputValue(),
        await abort1.getByLabel('once at least this many finished').inputValue(),
        await page.getByLabel('Longest offered').inputValue(),
        await page.getByLabel('Longest installed').inputValue(),
      ],
      [NIGHTLY, '0 25 * * *', '3', 'Europe/Berlin', '10', '500', '10', '20', '1', '30'],
    );

    // Fixed: 02:00 Berlin time. The body sent is the API's own, in seconds.
    await cron.fill('0 2 * * *');
    const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/tenants/acme/rollouts'));
    await page.getByRole('button', { name: 'Plan rollout' }).click();
    const body = (await sent).postDataJSON() as Record<string, unknown>;
    const planned = {
      windows: [{ cron: '0 2 * * *', duration_seconds: 10_800, time_zone: 'Europe/Berlin' }],
      ramp: { base_per_minute: 10, increment_factor: 2, increment_every: { confirmed: 100 }, maximum_per_minute: 500 },
      abort_criteria: [{ failure: 'failed', threshold_percentage: 10, min_finished: 20, action: 'pause' }],
    };
    assert.deepEqual(body, {
      name: NIGHTLY,
      firmware_id: 1,
      group: 'field-test',
      priority: 1,
      start_date: '2026-03-01 00:00:00',
      downgrade: false,
      ...planned,
      timeouts: { offered: 3600, installed: 1800 },
    });
    await page.getByText('Rollout planned as a draft.').waitFor();
    await page.locator('.badge', { hasText: 'draft' }).waitFor();
    const id = Number(/\/rollouts\/(\d+)/.exec(page.url())![1]);
    assert.equal(id, 2);
    const schedule = (await page.getByRole('status', { name: 'Maintenance windows and ramp' }).innerText()).replace(/\s+/g, ' ');
    assert.ok(schedule.includes('Maintenance windows: 0 2 * * * (Europe/Berlin) for 3h.'), schedule);
    assert.ok(schedule.includes('Ramp: 10 new offers a minute, ×2 every 100 confirmed, at most 500 a minute.'), schedule);
    const guards = (await page.getByRole('status', { name: 'Abort criteria and timeouts' }).innerText()).replace(/\s+/g, ' ');
    assert.ok(guards.includes('Abort criteria: pause when failed reaches 10 % of at least 20 finished.'), guards);
    assert.ok(guards.includes('Timeouts: offered 1h, installed 30m; longer is timed out.'), guards);
    // The API's rollout has them too.
    const r = (await page.evaluate(async (n) => (await fetch(`tenants/acme/rollouts/${n}`)).json(), id)) as Record<string, unknown>;
    assert.deepEqual(
      { windows: r['windows'], ramp: r['ramp'], abort_criteria: r['abort_criteria'], timeouts: r['timeouts'] },
      { ...planned, timeouts: { offered: 3600, downloading: null, installed: 1800 } },
    );
    await screenshots(page, 'rollout-scheduled');
  });

  it('labels every control, fits every page on a phone, and moves by keyboard', async () => {
    for (const path of pages) {
      for (const viewport of [
        { width: 1280, height: 800 },
        { width: 390, height: 844 },
      ]) {
        await page.setViewportSize(viewport);
        await page.goto(at(`${path}?tenant=acme`));
        await page.locator('h1').waitFor();
        await settled(page);
        const unlabelled = await page.evaluate(UNLABELLED_CONTROLS);
        assert.deepEqual(unlabelled, [], `${path} at ${viewport.width} px`);
        const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
        assert.ok(overflow <= 0, `${path} is ${overflow} px wider than ${viewport.width} px`);
      }
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(at('/?tenant=acme'));
    await heading('Overview of acme').waitFor();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement.textContent'), 'Skip to the page');
    const address = page.url();
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate('document.activeElement.id'), 'main');
    assert.equal(page.url(), address, 'the skip link stays on the page');
    // From the tenant picker, the keyboard reaches the navigation and follows a link.
    await page.getByLabel('Tenant', { exact: true }).focus();
    for (let i = 0; i < 3; i++) await page.keyboard.press('Tab'); // Sign out, then Overview, then Devices
    assert.equal(await page.evaluate('document.activeElement.textContent'), 'Devices');
    await page.keyboard.press('Enter');
    await heading('Devices').waitFor();
    assert.equal(await page.evaluate('document.activeElement.tagName'), 'H1', 'focus moves to the new page’s heading');
  });

  it('logged no error in the browser console beyond the refusals provoked on purpose', () => {
    assert.deepEqual(
      admin.errors.filter((error) => !expectedErrors.some((expected) => error.startsWith(expected))),
      [],
    );
  });

  describe('as a viewer', () => {
    let viewer: TestBrowser;
    before(async () => {
      viewer = await openBrowser();
    });
    after(() => viewer?.close());

    /** Buttons that change nothing. */
    const READ_ONLY = new Set([
      'Sign out',
      'Previous page',
      'First page',
      'Next page',
      'Apply filters',
      'Clear',
      'Verify the ledger',
      'Sign in',
    ]);

    it('sees every page without a single control that changes anything', async () => {
      const p = viewer.page;
      await p.goto(at('/sign-in'));
      await p.getByLabel('Username').fill('viewer');
      await p.getByLabel('Password').fill(VIEWER_PASSWORD);
      await p.getByRole('button', { name: 'Sign in' }).click();
      await p.getByRole('heading', { level: 1, name: 'Overview of acme' }).waitFor();
      for (const path of pages) {
        await p.goto(at(`${path}?tenant=acme`));
        await p.locator('h1').waitFor();
        await settled(p);
        const buttons = await p.getByRole('button').allInnerTexts();
        assert.deepEqual(
          buttons.filter((name) => !READ_ONLY.has(name.trim())),
          [],
          path,
        );
        assert.equal(await p.locator('textarea, input[type=file]').count(), 0, path);
        if (path !== '/' && path !== '/devices' && !path.startsWith('/devices/') && path !== '/ledger') {
          await p.getByText('You have the viewer role: you can see everything here, and change nothing.').waitFor();
        }
        if (path === '/rollouts/1') await screenshots(p, 'viewer-rollout');
      }
    });

    it('is refused by the API anyway, in words', async () => {
      const answer = await viewer.page.evaluate(async () => {
        const response = await fetch('tenants', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"name":"sneaky"}',
        });
        return { status: response.status, body: await response.json() };
      });
      assert.deepEqual(answer, { status: 403, body: { message: 'Viewers may only read: this change needs the admin role' } });
      assert.deepEqual(
        viewer.errors.filter((error) => !error.startsWith(provoked(403))),
        [],
      );
    });
  });
});
