import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { openBrowser, screenshots, type TestBrowser } from '#test/support/browser.js';
import { request, startTestApp, type TestApp, type TestTenant } from '#test/support/harness.js';
import { runCliWithInput } from '#test/support/operator.js';

const PASSWORD = 'correct horse battery';

/**
 * The console's device import form (docs/operator-guide.md "Importing devices") in Debian's
 * Chromium, against the real app: an admin imports a CSV file and sees the devices listed, then a
 * file with bad rows is refused with each named by line and nothing imported.
 */
describe('operator console: importing devices in a browser', () => {
  let app: TestApp;
  let browser: TestBrowser;
  let page: Page;
  let tenant: TestTenant;
  let bearer: string;

  const importForm = async (name: string, text: string) => {
    await page.getByLabel('Device file (.csv, .ndjson, .jsonl)').setInputFiles({ name, mimeType: 'text/plain', buffer: Buffer.from(text) });
    await page.getByRole('button', { name: 'Import devices' }).click();
  };
  const deviceTotal = async (): Promise<number> => {
    const answer = await request('GET', `${app.urls.operator}/tenants/${tenant.name}/devices?per_page=1`, { bearer });
    return (answer.body as { total: number }).total;
  };

  before(async () => {
    app = await startTestApp();
    tenant = await app.createTenant('import-console', 'ESP32');
    await app.createGroup(tenant, 'hall-b', []);
    bearer = await app.createOperatorToken();
    const created = await runCliWithInput(app, `${PASSWORD}\n`, 'operator-user', 'create', 'admin', '--role', 'admin');
    assert.equal(created.code, 0, created.stderr);
    browser = await openBrowser();
    page = browser.page;
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('imports a CSV file: the answer counts the devices, the list shows them; bad rows are listed by line and nothing is imported', async () => {
    await page.goto(`${app.urls.operator}/sign-in`);
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Pages' }).waitFor();
    await page.goto(`${app.urls.operator}/devices?tenant=${tenant.name}`);
    await page.getByText('Import devices from a CSV or NDJSON file').click();

    const csv = [
      'mac,device_type,firmware_version,name,group',
      'AC:67:B2:0C:00:01,ESP32,1.0.0,console one,hall-b',
      'AC:67:B2:0C:00:02,ESP32,1.0.0,console two,',
      'AC:67:B2:0C:00:03,ESP32,1.0.1,console three,',
    ].join('\n');
    await importForm('devices.csv', csv);
    await page.getByRole('status').filter({ hasText: 'Imported 3 devices of 3 rows; skipped 0 the tenant has.' }).waitFor();
    await page.getByRole('link', { name: 'AC:67:B2:0C:00:02' }).waitFor();
    await screenshots(page, 'device-import');
    assert.equal(await deviceTotal(), 3);

    const bad = ['mac,device_type', 'AC:67:B2:0C:00:04,ESP32', 'zz,ESP32', 'AC:67:B2:0C:00:05,'].join('\n');
    await importForm('bad.csv', bad);
    await page
      .getByRole('alert')
      .filter({ hasText: /^line 3: mac "zz" is not a hardware address/ })
      .waitFor();
    assert.deepEqual(await page.getByRole('list', { name: 'Bad rows' }).getByRole('listitem').allInnerTexts(), [
      'line 3: mac "zz" is not a hardware address (EUI-48 or EUI-64, e.g. AC:67:B2:01:02:03); a controller id goes in controller_id',
      'line 4: device_type is required',
    ]);
    assert.equal(await deviceTotal(), 3, 'nothing of the bad file was imported');
    assert.deepEqual(
      browser.errors.filter((e) => !e.includes('status of 400')),
      [],
      'the console logs no error but the refusal it provoked',
    );
  });
});
