import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { existsSync } from 'node:fs';
import { UNIFONT_SYSTEM_PATHS } from '#src/protocols/asvin/report/report-fonts.js';
import { get, post, startTestApp, type Answer, type TestApp, type TestTenant } from '#test/support/harness.js';
import { insertDevices } from '#test/support/devices.js';
import { pdfPageTexts, pdfText } from '#test/support/pdf-text.js';

const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';
const UNICODE_NAME = 'Ünïcødé Κόμβος Устройство';
const ESCAPE_NAME = `Tom & Jerry <b>"quoted"</b> 'apos' &amp;`;

interface DeviceRow {
  mac: string;
  name: string;
  'firmware-version': string;
}

/** `GET {vc}/api/report/:type` (docs/device-interface.md, docs/decisions.md §6). */
describe('device reports (docs/decisions.md §6)', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let token: string;
  let emptyToken: string;
  const devices = [
    { mac: 'AC:67:B2:40:00:01', name: UNICODE_NAME, firmware_version: '1.10' },
    { mac: 'ac-67-b2-40-00-02', name: ESCAPE_NAME, firmware_version: '2.0-rc1 <beta>' },
    { mac: 'ac67b2400003', firmware_version: '007' },
  ];

  const report = (type: string, as = token): Promise<Answer> => get(`${app.urls.vc}/api/report/${type}`, as);
  const deviceList = async (as = token): Promise<DeviceRow[]> => {
    const answer = await get(`${app.urls.vc}/api/device/`, as);
    assert.equal(answer.status, 200);
    return answer.body as DeviceRow[];
  };
  const byMac = (rows: DeviceRow[]): DeviceRow[] => [...rows].sort((a, b) => a.mac.localeCompare(b.mac));

  before(async () => {
    app = await startTestApp();
    tenant = await app.createTenant('Report Tenant Ωmega');
    token = await app.login(tenant);
    for (const body of devices) {
      const answer = await post(`${app.urls.vc}/api/device/register`, body, token);
      assert.deepEqual(answer.body, { message: 'Device inserted!' });
    }
    emptyToken = await app.login(await app.createTenant('Empty Report Tenant'));
  });
  after(() => app.close());

  describe('json', () => {
    it('equals the device list', async () => {
      const answer = await report('json');
      assert.equal(answer.status, 200);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
      const list = await deviceList();
      assert.deepEqual(answer.body, list);
      assert.equal(list.length, 3);
      for (const row of answer.body) assert.deepEqual(Object.keys(row), ['mac', 'name', 'firmware-version']);
      assert.deepEqual(byMac(answer.body), [
        { mac: 'AC:67:B2:40:00:01', name: UNICODE_NAME, 'firmware-version': '1.10' },
        { mac: 'AC:67:B2:40:00:02', name: ESCAPE_NAME, 'firmware-version': '2.0-rc1 <beta>' },
        { mac: 'AC:67:B2:40:00:03', name: 'AC:67:B2:40:00:03', 'firmware-version': '007' },
      ]);
    });

    it('is [] for a tenant without devices', async () => {
      const answer = await report('json', emptyToken);
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body, []);
    });
  });

  describe('xml', () => {
    it('is application/xml; charset=utf-8 and starts exactly with the XML declaration', async () => {
      const answer = await report('xml');
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('content-type'), 'application/xml; charset=utf-8');
      assert.ok(answer.text.startsWith(XML_DECLARATION), answer.text.slice(0, 60));
      assert.equal(XMLValidator.validate(answer.text), true);
    });

    it('has root `root` with one `element` per device, children firmware-version, mac, name in order', async () => {
      const answer = await report('xml');
      // Whitespace between tags (pretty printing) would be allowed; trimValues drops it.
      const ordered = new XMLParser({ preserveOrder: true, ignoreDeclaration: true, parseTagValue: false }).parse(answer.text) as Record<
        string,
        unknown[]
      >[];
      assert.deepEqual(
        ordered.map((node) => Object.keys(node)),
        [['root']],
        'one top-level element `root`',
      );
      const children = ordered[0].root as Record<string, unknown[]>[];
      assert.deepEqual(
        children.map((node) => Object.keys(node)),
        [['element'], ['element'], ['element']],
      );
      for (const element of children) {
        const parts = element.element as Record<string, unknown>[];
        assert.deepEqual(
          parts.map((node) => Object.keys(node)),
          [['firmware-version'], ['mac'], ['name']],
        );
      }
      assert.deepEqual(children.map((element) => (element.element as Record<string, { '#text': string }[]>[])[1].mac[0]['#text']).sort(), [
        'AC:67:B2:40:00:01',
        'AC:67:B2:40:00:02',
        'AC:67:B2:40:00:03',
      ]);
    });

    it('carries every device value, with & < > " \' escaped', async () => {
      const answer = await report('xml');
      const parsed = new XMLParser({ parseTagValue: false, trimValues: false, isArray: (name) => name === 'element' }).parse(
        answer.text,
      ) as {
        root: { element: DeviceRow[] };
      };
      const rows = parsed.root.element.map((e) => ({ mac: e.mac, name: e.name, 'firmware-version': e['firmware-version'] }));
      assert.deepEqual(byMac(rows), byMac(await deviceList()));
      // Escaped in the document text, not merely tolerated by a lenient parser.
      assert.ok(!answer.text.includes('<b>'), 'raw markup from a name leaked into the document');
      assert.ok(answer.text.includes('Tom &amp; Jerry &lt;b&gt;'), answer.text);
      assert.ok(answer.text.includes('&amp;amp;'), 'a literal "&amp;" in a name must be escaped again');
      assert.ok(answer.text.includes('2.0-rc1 &lt;beta&gt;'), answer.text);
      assert.ok(Buffer.from(answer.bytes).toString('utf8').includes(UNICODE_NAME));
    });

    it('is a root without elements for a tenant without devices', async () => {
      const answer = await report('xml', emptyToken);
      assert.equal(answer.status, 200);
      assert.ok(answer.text.startsWith(XML_DECLARATION));
      const ordered = new XMLParser({ preserveOrder: true, ignoreDeclaration: true }).parse(answer.text) as Record<string, unknown[]>[];
      assert.deepEqual(
        ordered.map((node) => Object.keys(node)),
        [['root']],
      );
      assert.deepEqual(
        ordered[0].root.filter((n) => Object.keys(n as object)[0] === 'element'),
        [],
      );
    });
  });

  describe('pdf', () => {
    it('is an application/pdf attachment that starts with %PDF-', async () => {
      const answer = await report('pdf');
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('content-type'), 'application/pdf');
      assert.match(answer.headers.get('content-disposition') ?? '', /^attachment\b/);
      assert.equal(answer.bytes.subarray(0, 5).toString('latin1'), '%PDF-');
      assert.match(answer.bytes.subarray(-16).toString('latin1'), /%%EOF\s*$/);
    });

    it('shows the tenant, the device count and every device, Unicode names included', async () => {
      const text = await pdfText((await report('pdf')).bytes);
      assert.ok(text.includes('Report Tenant Ωmega'), text);
      assert.match(text, /devices?\b[^0-9\n]{0,12}\b3\b/i);
      assert.ok(text.includes(UNICODE_NAME), text);
      for (const row of await deviceList()) {
        assert.ok(text.includes(row.mac), `missing ${row.mac} in ${text}`);
        assert.ok(text.includes(row['firmware-version']), `missing ${row['firmware-version']} in ${text}`);
      }
    });

    // Without GNU Unifont the server draws such names blank, as the README says; skip visibly then, as the unit specs do.
    const unifont = UNIFONT_SYSTEM_PATHS.some((path) => existsSync(path));
    it('renders a CJK device name', { skip: unifont ? false : 'GNU Unifont missing (apt-get install fonts-unifont)' }, async () => {
      const cjk = await app.createTenant('CJK Report Tenant');
      const cjkToken = await app.login(cjk);
      const name = '温度センサー 一号機';
      assert.deepEqual(
        (await post(`${app.urls.vc}/api/device/register`, { mac: 'AC:67:B2:40:00:10', name, firmware_version: '1.0' }, cjkToken)).body,
        {
          message: 'Device inserted!',
        },
      );
      const answer = await report('pdf', cjkToken);
      assert.equal(answer.status, 200);
      const text = await pdfText(answer.bytes);
      assert.ok(text.includes(name), `CJK name missing: ${text}`);
    });

    it('shows a device count of 0 for a tenant without devices', async () => {
      const answer = await report('pdf', emptyToken);
      assert.equal(answer.status, 200);
      assert.match(await pdfText(answer.bytes), /devices?\b[^0-9\n]{0,12}\b0\b/i);
    });
  });

  describe('more devices than one page (streamed a page at a time)', () => {
    let bigToken: string;
    const count = 2345;

    before(async () => {
      const big = await app.createTenant('Big Report Tenant');
      await insertDevices(app, big, count);
      bigToken = await app.login(big);
    });

    it('json has exactly the bytes of the device list', async () => {
      const list = await get(`${app.urls.vc}/api/device/`, bigToken);
      const answer = await report('json', bigToken);
      assert.equal(answer.status, 200);
      assert.equal((answer.body as DeviceRow[]).length, count);
      assert.equal(answer.text, list.text);
    });

    it('xml holds every device once, in the order of the list', async () => {
      const answer = await report('xml', bigToken);
      assert.equal(answer.status, 200);
      assert.equal(XMLValidator.validate(answer.text), true);
      const parsed = new XMLParser({ parseTagValue: false, trimValues: false, isArray: (name) => name === 'element' }).parse(
        answer.text,
      ) as {
        root: { element: DeviceRow[] };
      };
      const list = await deviceList(bigToken);
      assert.deepEqual(
        parsed.root.element.map((e) => ({ mac: e.mac, name: e.name, 'firmware-version': e['firmware-version'] })),
        list,
      );
    });

    it('pdf holds every device once, in the order of the list, on full pages numbered "Page i of n"', async () => {
      const answer = await report('pdf', bigToken);
      assert.equal(answer.status, 200);
      const pages = await pdfPageTexts(answer.bytes);
      assert.match(pages[0], /Devices:\s*2345\b/);
      const macs = pages.map((page) => page.match(/AC:67:B2:9[0-9A-F]:[0-9A-F]{2}:[0-9A-F]{2}/g) ?? []);
      assert.deepEqual(
        macs.flat(),
        (await deviceList(bigToken)).map((device) => device.mac),
      );
      for (const [i, page] of pages.entries()) {
        assert.ok(page.includes(`Page ${i + 1} of ${pages.length}`), `page ${i + 1} lacks its number`);
        assert.ok(page.includes('Firmware version'), `page ${i + 1} lacks the header row`);
        // Rendered in chunks of 1,000 devices, yet no page but the last is short (40 to 47 rows fit).
        if (i < pages.length - 1) assert.ok(macs[i].length >= 40, `page ${i + 1} holds only ${macs[i].length} devices`);
      }
    });
  });

  it('answers 404 {"message":"Unknown report type"} for any other type', async () => {
    for (const type of ['csv', 'html', 'xmlx', 'pdf.pdf']) {
      const answer = await report(type);
      assert.equal(answer.status, 404, type);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(answer.body, { message: 'Unknown report type' }, type);
    }
  });

  it('answers 401 JWT is not valid without a token', async () => {
    for (const type of ['json', 'xml', 'pdf']) {
      const answer = await get(`${app.urls.vc}/api/report/${type}`);
      assert.equal(answer.status, 401, type);
      assert.deepEqual(answer.body, { message: 'JWT is not valid' });
    }
  });
});
