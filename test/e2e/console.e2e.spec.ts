import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { simulatedMacs } from '#src/cli/simulate/macs.js';
import { openBrowser, screenshots, type TestBrowser } from '#test/support/browser.js';
import { startTestApp, type TestApp } from '#test/support/harness.js';
import { runCli, runCliWithInput } from '#test/support/operator.js';

const ADMIN_PASSWORD = 'correct horse battery';
const VIEWER_PASSWORD = 'read only and happy';
const FLEET = 200;
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
  const keys = { customer: '', device: '' };
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
    '/ledger',
  ];

  /** A console path under the operator base URL. */
  const at = (path: string) => `${operator}${path}`;
  const heading = (name: string | RegExp) => page.getByRole('heading', { level: 1, name });
  const nav = (name: string) => page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name, exact: true }).click();
  /** The text of the rollout page's progress sentence. */
  const progress = () => page.locator('.progress-line').innerText();
  /** `firmledger simulate` as a separate process against the app, as a person would run it. */
  const simulate = async (devices: number) => {
    // The devices sign logins with the real time: the app's clock follows it for this scenario.
    app.clock.ms = Date.now();
    const outcome = await runCli(
      app,
      'simulate',
      '--customer-key',
      keys.customer,
      '--device-key',
      keys.device,
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
    );
    assert.equal(outcome.code, 0, outcome.stderr || outcome.stdout);
    return JSON.parse(outcome.stdout) as { updated: number; upToDate: number };
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
    assert.match(keys.device, /^[0-9a-f]{32}$/);
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
      .getByLabel('or a CSV file (macs in the first column)')
      .setInputFiles({ name: 'fleet.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Create group' }).click();
    await heading('Group field-test').waitFor();
    await page.getByRole('heading', { name: `${FLEET} members` }).waitFor();
    await screenshots(page, 'group');

    expectedErrors.push(provoked(400));
    await page.getByLabel('Paste macs (one per line, or separated by spaces)').first().fill('AC:67:B2:01:02:03\nzz:not:a:mac');
    await page.getByRole('button', { name: 'Add members' }).click();
    await page.getByRole('alert').filter({ hasText: '"zz:not:a:mac" is not a hardware address (EUI-48 or EUI-64)' }).waitFor();
    await page.getByRole('heading', { name: `${FLEET} members` }).waitFor();
  });

  it('plans a rollout and starts it', async () => {
    await nav('Groups');
    await page.getByRole('link', { name: 'field-test' }).waitFor();
    await screenshots(page, 'groups');
    await nav('Rollouts');
    await heading('Rollouts').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('1.1.0 to field test');
    await page.getByLabel('Firmware', { exact: true }).selectOption({ label: '1.1.0 for ESP32 (firmware 1)' });
    await page.getByLabel('Device group').selectOption({ label: `field-test (${FLEET} members)` });
    await page.getByLabel('Priority (1 is most urgent)').fill('1');
    await page.getByLabel('Start date, UTC (YYYY-MM-DD HH:MM:SS)').fill('2026-01-01 00:00:00');
    await page.getByRole('button', { name: 'Plan rollout' }).click();
    await page.getByText('Rollout planned as a draft.').waitFor();
    await page.locator('.badge', { hasText: 'draft' }).waitFor();
    assert.equal(await progress(), `0 of ${FLEET} devices updated (0 %); last report never.`);
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await page.locator('.badge', { hasText: 'active' }).waitFor();
    await nav('Rollouts');
    await page.getByRole('link', { name: '1.1.0 to field test' }).waitFor();
    await screenshots(page, 'rollouts');
    await page.getByRole('link', { name: '1.1.0 to field test' }).click();
    await page.locator('.badge', { hasText: 'active' }).waitFor();
  });

  it('shows the progress moving while devices update, without reloading the page', async () => {
    await page.evaluate('window.sameDocument = true');
    assert.equal((await simulate(50)).updated, 50);
    await page.getByText(`50 of ${FLEET} devices updated (25 %)`).waitFor();
    assert.equal((await simulate(100)).updated, 50);
    await page.getByText(`100 of ${FLEET} devices updated (50 %)`).waitFor();
    const bar = page.getByRole('progressbar', { name: 'Progress of 1.1.0 to field test' });
    assert.equal(await bar.getAttribute('aria-valuenow'), '100');
    assert.equal(await page.evaluate('window.sameDocument'), true, 'no reload');
    await screenshots(page, 'rollout');
  });

  it('pauses the rollout (no device is offered it), resumes it, and sees it finish', async () => {
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.locator('.badge', { hasText: 'paused' }).waitFor();
    // The 100 updated devices and 20 more ask: none is offered the paused rollout.
    const paused = await simulate(120);
    assert.deepEqual({ updated: paused.updated, upToDate: paused.upToDate }, { updated: 0, upToDate: 120 });
    await page.waitForTimeout(2_500); // a refresh later, still where it was
    assert.match(await progress(), new RegExp(`^100 of ${FLEET} devices updated`));

    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('.badge', { hasText: 'active' }).waitFor();
    assert.equal((await simulate(FLEET)).updated, FLEET - 100);
    await page.getByText(`${FLEET} of ${FLEET} devices updated (100 %)`).waitFor();
    await page.locator('.badge', { hasText: 'finished' }).waitFor();
    assert.equal(await page.getByRole('group', { name: 'Rollout actions' }).count(), 0, 'a finished rollout offers no action');
    assert.equal(await page.evaluate('window.sameDocument'), true, 'no reload');
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
    await page.getByLabel('Order').selectOption({ label: 'oldest first' });
    await page.getByRole('cell', { name: 'tenant.created', exact: true }).waitFor();
    for (const change of [
      'tenant.created',
      'device-key.created',
      'firmware.published',
      'group.created',
      'rollout.created',
      'rollout.started',
    ]) {
      const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: change, exact: true }) });
      assert.match(await row.first().innerText(), /\tuser:admin\t/, change);
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
    await page.getByLabel('Search mac or name').fill(macs[FLEET - 1].slice(-5).replace(':', ''));
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('1 device', { exact: true }).waitFor();
    await screenshots(page, 'devices');
    await page.getByRole('link', { name: macs[FLEET - 1] }).click();
    await heading(`Device ${macs[FLEET - 1]}`).waitFor();
    const history = await page.getByRole('region', { name: 'Rollout history' }).innerText();
    assert.match(
      history,
      // The simulator reports success as the ESP32 does, with the version it ran (README "Rollout semantics").
      /1\.1\.0 to field test\s+finished\s+field-test\s+1\.1\.0\s+updated at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, reporting 1\.0\.0/,
    );
    await screenshots(page, 'device');
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
    const READ_ONLY = new Set(['Sign out', 'Previous page', 'Next page', 'Apply filters', 'Clear', 'Verify the ledger', 'Sign in']);

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
