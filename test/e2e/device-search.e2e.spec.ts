import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { post, request, startTestApp, TEST_ENGINE, type TestApp, type TestTenant } from '#test/support/harness.js';
import type { Page } from '#src/operator/dto/paging.dto.js';
import type { DeviceSummaryResponse } from '#src/operator/dto/fleet.dto.js';

/** A device of the fleet searched here: its identifier and name. */
interface Named {
  mac: string;
  name: string;
  /** A hawkBit controller id rather than a hardware address (docs/decisions.md §11). */
  controller?: true;
}

const FLEET: Named[] = [
  { mac: '02:B0:00:0F:42:3F', name: 'Pumpe 97 Kühlhaus Süd' },
  { mac: '02:B0:00:0F:42:40', name: 'pumpe 98 kühlhaus nord' },
  { mac: '02:B0:00:00:00:01', name: 'sensor-1 Halle 1' },
  { mac: '02:B0:00:00:00:02', name: 'SENSOR-2 HALLE 2' },
  { mac: '02:B0:00:00:00:03', name: '100% dry' },
  { mac: '02:B0:00:00:00:04', name: '100 percent dry' },
  { mac: '02:B0:00:00:00:05', name: 'under_score' },
  { mac: '02:B0:00:00:00:06', name: 'underXscore' },
  { mac: '02:B0:00:00:00:07', name: 'say "hi" to the gate' },
  { mac: '02:B0:00:00:00:08', name: 'back\\slash' },
  { mac: 'AA:BB:CC:DD:EE:FF', name: 'Ab' },
  { mac: '02:B0:00:AB:CD:EF', name: 'abc def' },
  { mac: '02:B0:00:0F:00:42', name: 'Keller 0F42' },
  { mac: 'gw-0F42AB', name: 'gateway', controller: true },
  { mac: 'Rack:AB:CD', name: 'rack', controller: true },
  { mac: 'DEAD:BEEF:01', name: 'beef', controller: true },
];

/** Queries of three characters and more (a trigram index serves them) and shorter ones (a scan). */
const QUERIES = [
  'Kühlhaus',
  'kühlHAUS',
  'pumpe 9',
  'sensor-',
  'halle 2',
  '0F423F',
  '0f:42:3f',
  '0f-42-40',
  'b0.00.0f',
  '0F42',
  ':42:',
  '02:B0',
  '100%',
  '0%',
  'under_',
  'r_s',
  '"hi"',
  'k\\s',
  'abc',
  'ABCDEF',
  'Ab',
  'ab',
  'F',
  'ü',
  'nothing like it',
  'gw-0',
  'GW-0f4',
  'k:ab',
  'AB:CD',
  'ad:be',
  'DEAD',
  'beef:0',
  '0F42AB',
  '"',
  'y "hi',
  '😀😀😀',
  '😀x',
  'NEAR(a b)',
  'dry OR halle',
];

/**
 * What a search should find, written from the rule (docs/decisions.md §9): part of the name or of
 * the identifier in any case, or hex digits of the mac with the separators `:` `.` `-` and spaces
 * ignored. Names here change case only in ASCII letters: how the engines fold other letters differs;
 * and no controller id in lower case is searched by its hex digits (SQLite matches those in any case).
 */
function matches(device: Named, text: string): boolean {
  const lower = text.toLowerCase();
  if (device.name.toLowerCase().includes(lower) || device.mac.toLowerCase().includes(lower)) return true;
  const hex = text.replace(/[:.\-\s]/g, '').toUpperCase();
  return /^[0-9A-F]+$/.test(hex) && device.mac.replace(/:/g, '').includes(hex);
}

/** The device list's text search (`?q=`) against the rule, on short and long texts, as devices come and go. */
describe(`operator API: device search (docs/decisions.md §9, ${TEST_ENGINE})`, () => {
  let app: TestApp;
  let tenant: TestTenant;
  let bearer: string;
  let token: string;
  const fleet = [...FLEET];

  const search = async (text: string, filters = ''): Promise<Page<DeviceSummaryResponse>> => {
    const answer = await request(
      'GET',
      `${app.urls.operator}/tenants/${tenant.name}/devices?per_page=100&q=${encodeURIComponent(text)}${filters}`,
      {
        bearer,
      },
    );
    assert.equal(answer.status, 200, answer.text);
    return answer.body as Page<DeviceSummaryResponse>;
  };
  const expected = (text: string) =>
    fleet
      .filter((d) => matches(d, text))
      .map((d) => d.mac)
      .sort();

  before(async () => {
    app = await startTestApp();
    bearer = await app.createOperatorToken();
    tenant = await app.createTenant(undefined, 'ESP32');
    token = await app.login(tenant);
    // Half imported (never seen), half registered by the devices themselves; controller ids imported.
    const imported = FLEET.filter((d) => !d.controller).slice(0, 7);
    const csv = ['mac,device_type,firmware_version,name', ...imported.map((d) => `${d.mac},ESP32,1.0,"${d.name.replace(/"/g, '""')}"`)];
    const answer = await request('POST', `${app.urls.operator}/tenants/${tenant.name}/devices/import`, {
      bearer,
      rawBody: `${csv.join('\n')}\n`,
      headers: { 'content-type': 'text/csv' },
    });
    assert.equal(answer.status, 200, answer.text);
    const controllers = ['controller_id,device_type,name', ...FLEET.filter((d) => d.controller).map((d) => `${d.mac},ESP32,${d.name}`)];
    const ddi = await request('POST', `${app.urls.operator}/tenants/${tenant.name}/devices/import`, {
      bearer,
      rawBody: `${controllers.join('\n')}\n`,
      headers: { 'content-type': 'text/csv' },
    });
    assert.equal(ddi.status, 200, ddi.text);
    for (const device of FLEET.filter((d) => !d.controller).slice(7)) {
      const registered = await post(`${app.urls.vc}/api/device/register`, { ...device, firmware_version: '2.0' }, token);
      assert.equal(registered.status, 200, registered.text);
    }
    // Another tenant's device with a matching name and mac is never found.
    const other = await app.createTenant(undefined, 'ESP32');
    const otherDevice = { mac: '02:B0:00:0F:42:3F', name: 'Kühlhaus sensor-1', firmware_version: '1.0' };
    assert.equal((await post(`${app.urls.vc}/api/device/register`, otherDevice, await app.login(other))).status, 200);
  });
  after(() => app?.close());

  for (const text of QUERIES) {
    it(`finds exactly the devices the rule names for ${JSON.stringify(text)}, with their total`, async () => {
      const page = await search(text);
      const macs = expected(text);
      assert.deepEqual(
        page.items.map((d) => d.mac),
        macs,
      );
      assert.equal(page.total, macs.length);
    });
  }

  it('combines the search with the other filters', async () => {
    const page = await search('dry', '&firmware_version=1.0');
    assert.deepEqual(
      page.items.map((d) => d.mac),
      ['02:B0:00:00:00:03', '02:B0:00:00:00:04'],
    );
    assert.equal((await search('0F42', '&firmware_version=2.0')).total, 1, 'only Keller 0F42 registered on 2.0');
  });

  it('finds a device from the moment it is registered, and no longer once it is deleted', async () => {
    const added = { mac: '02:B0:00:77:77:77', name: 'Kühlhaus Ost' };
    assert.equal((await post(`${app.urls.vc}/api/device/register`, { ...added, firmware_version: '1.0' }, token)).status, 200);
    fleet.push(added);
    assert.deepEqual(
      (await search('kühlhaus')).items.map((d) => d.mac),
      expected('kühlhaus'),
    );
    assert.ok(expected('kühlhaus').includes(added.mac));
    assert.ok(expected('777777').includes(added.mac));
    assert.equal((await search('777777')).total, 1);

    const deleted = await request('DELETE', `${app.urls.vc}/api/device/`, { body: { mac: FLEET[0].mac }, token });
    assert.equal(deleted.status, 200, deleted.text);
    fleet.splice(fleet.indexOf(FLEET[0]), 1);
    for (const text of ['Kühlhaus', '0F423F', 'Süd']) {
      assert.deepEqual(
        (await search(text)).items.map((d) => d.mac),
        expected(text),
        text,
      );
    }
    assert.equal((await search('Süd')).total, 0);
  });
});
