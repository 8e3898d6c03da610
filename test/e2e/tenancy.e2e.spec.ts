import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FirmwareView } from '#src/domain/firmware/firmware.service.js';
import type { RolloutView } from '#src/domain/rollout/rollout-progress.service.js';
import { get, post, request, startTestApp, type Answer, type TestApp, type TestTenant } from '#test/support/harness.js';
import { pdfText } from '#test/support/pdf-text.js';

/** The parts of an answer a device can tell apart. */
const seen = (answer: Answer) => ({ status: answer.status, body: answer.body });

/**
 * docs/decisions.md §5: everything a token reaches is scoped to its tenant; another tenant's device,
 * rollout or firmware answers exactly as an absent one would.
 */
describe('tenancy (docs/decisions.md §5)', () => {
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let tokenA: string;
  let tokenB: string;
  let firmwareA: FirmwareView;
  let rolloutA: RolloutView;
  const MAC_A = 'AC:67:B2:50:00:01';
  const NAME_A = 'Tenant A secret boiler';
  const ABSENT_MAC = 'AC:67:B2:50:0F:FF';
  const ABSENT_CID = 'QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG';

  const vc = (path: string): string => `${app.urls.vc}${path}`;
  const getDevice = (mac: string, token: string) => get(vc(`/api/device/${mac}`), token);

  before(async () => {
    app = await startTestApp();
    a = await app.createTenant('Tenant A', 'ESP32');
    b = await app.createTenant('Tenant B', 'ESP32');
    tokenA = await app.login(a);
    tokenB = await app.login(b);
    assert.deepEqual((await post(vc('/api/device/register'), { mac: MAC_A, name: NAME_A, firmware_version: '1.0' }, tokenA)).body, {
      message: 'Device inserted!',
    });
    firmwareA = await app.publishFirmware(a, '2.0', Buffer.from('tenant A firmware 2.0, not for tenant B'));
    await app.publishFirmware(a, '1.0', Buffer.from('tenant A firmware 1.0'));
    await app.createGroup(a, 'fleet', [MAC_A]);
    rolloutA = await app.createRollout(a, { name: 'A rollout', firmwareId: firmwareA.id, group: 'fleet' });
  });
  after(() => app.close());

  it("does not list tenant A's device to tenant B", async () => {
    const answer = await get(vc('/api/device/'), tokenB);
    assert.equal(answer.status, 200);
    assert.ok(!(answer.body as { mac: string }[]).some((d) => d.mac === MAC_A), answer.text);
    assert.ok(!answer.text.includes(NAME_A));
  });

  it("answers tenant B's get of tenant A's device as for an absent one", async () => {
    const foreign = await getDevice(MAC_A, tokenB);
    const absent = await getDevice(ABSENT_MAC, tokenB);
    assert.deepEqual(seen(foreign), { status: 404, body: { message: "Device does't exist!" } });
    assert.deepEqual(seen(foreign), seen(absent));
  });

  it("answers tenant B's delete of tenant A's device as for an absent one, and A keeps it", async () => {
    const foreign = await request('DELETE', vc('/api/device/'), { token: tokenB, body: { mac: MAC_A } });
    const absent = await request('DELETE', vc('/api/device/'), { token: tokenB, body: { mac: ABSENT_MAC } });
    assert.deepEqual(seen(foreign), { status: 404, body: { message: "Device does't exist!" } });
    assert.deepEqual(seen(foreign), seen(absent));
    assert.deepEqual((await getDevice(MAC_A, tokenA)).body, { mac: MAC_A, name: NAME_A, 'firmware-version': '1.0' });
  });

  it("keeps tenant A's devices out of tenant B's reports", async () => {
    const json = await get(vc('/api/report/json'), tokenB);
    assert.equal(json.status, 200);
    assert.ok(!(json.body as { mac: string }[]).some((d) => d.mac === MAC_A));
    const xml = await get(vc('/api/report/xml'), tokenB);
    assert.equal(xml.status, 200);
    assert.ok(!xml.text.includes(MAC_A) && !xml.text.includes(NAME_A), xml.text);
    const pdf = await get(vc('/api/report/pdf'), tokenB);
    assert.equal(pdf.status, 200);
    const text = await pdfText(pdf.bytes);
    assert.ok(!text.includes(MAC_A) && !text.includes(NAME_A) && !text.includes('Tenant A'), text);
    // The same reports for tenant A do show it, so the checks above can fail.
    assert.ok((await get(vc('/api/report/xml'), tokenA)).text.includes(MAC_A));
    assert.ok((await pdfText((await get(vc('/api/report/pdf'), tokenA)).bytes)).includes(NAME_A));
  });

  it("answers tenant B's next rollout for tenant A's device as for an absent one, changing nothing", async () => {
    const foreign = await post(vc('/api/device/next/rollout'), { mac: MAC_A, firmware_version: '0.1' }, tokenB);
    const absent = await post(vc('/api/device/next/rollout'), { mac: ABSENT_MAC, firmware_version: '0.1' }, tokenB);
    assert.deepEqual(seen(foreign), { status: 404, body: { message: "Device does't exist!" } });
    assert.deepEqual(seen(foreign), seen(absent));
    assert.equal(((await getDevice(MAC_A, tokenA)).body as Record<string, string>)['firmware-version'], '1.0');
  });

  it("answers tenant B's success report for tenant A's rollout as for an absent one", async () => {
    const foreign = await post(
      vc('/api/device/success/rollout'),
      { mac: MAC_A, firmware_version: '2.0', rollout_id: String(rolloutA.id) },
      tokenB,
    );
    const absent = await post(
      vc('/api/device/success/rollout'),
      { mac: MAC_A, firmware_version: '2.0', rollout_id: String(rolloutA.id + 1000) },
      tokenB,
    );
    assert.deepEqual(seen(foreign), { status: 404, body: { message: 'Rollout not found' } });
    assert.deepEqual(seen(foreign), seen(absent));
    // Tenant A's device was not touched and can still report it itself (first report wins).
    assert.equal(((await getDevice(MAC_A, tokenA)).body as Record<string, string>)['firmware-version'], '1.0');
  });

  it("answers tenant B's chain lookups of tenant A's device and firmware as for absent ones", async () => {
    const device = await get(`${app.urls.bc}/device/${MAC_A}`, tokenB);
    const absentDevice = await get(`${app.urls.bc}/device/${ABSENT_MAC}`, tokenB);
    assert.deepEqual(seen(device), { status: 404, body: { message: 'Device not found' } });
    assert.deepEqual(seen(device), seen(absentDevice));
    const firmware = await get(`${app.urls.bc}/firmware/${firmwareA.id}`, tokenB);
    const absentFirmware = await get(`${app.urls.bc}/firmware/987654`, tokenB);
    assert.deepEqual(seen(firmware), { status: 404, body: { message: 'Firmware not found' } });
    assert.deepEqual(seen(firmware), seen(absentFirmware));
    // Tenant A sees both, so the checks above can fail.
    assert.equal((await get(`${app.urls.bc}/device/${MAC_A}`, tokenA)).status, 200);
    assert.equal((await get(`${app.urls.bc}/firmware/${firmwareA.id}`, tokenA)).status, 200);
  });

  it("answers tenant B's download of tenant A's firmware as for an absent CID", async () => {
    const foreign = await get(`${app.urls.ipfs}/ipfs/${firmwareA.cid}`, tokenB);
    const absent = await get(`${app.urls.ipfs}/ipfs/${ABSENT_CID}`, tokenB);
    assert.equal(foreign.status, 404);
    assert.deepEqual(seen(foreign), seen(absent));
    assert.ok(!foreign.text.includes('tenant A firmware'));
    const own = await get(`${app.urls.ipfs}/ipfs/${firmwareA.cid}`, tokenA);
    assert.equal(own.status, 200);
    assert.equal(own.text, 'tenant A firmware 2.0, not for tenant B');
  });

  describe('the same mac in both tenants', () => {
    let c: TestTenant;
    let d: TestTenant;
    let tokenC: string;
    let tokenD: string;
    const MAC = 'AC:67:B2:50:00:02';

    before(async () => {
      c = await app.createTenant('Tenant C', 'ESP32');
      d = await app.createTenant('Tenant D', 'ESP8266');
      tokenC = await app.login(c);
      tokenD = await app.login(d);
    });

    it('registers independently in each tenant, each keeping its own record', async () => {
      assert.deepEqual((await post(vc('/api/device/register'), { mac: MAC, name: 'in C', firmware_version: '3.0' }, tokenC)).body, {
        message: 'Device inserted!',
      });
      assert.deepEqual(
        (await post(vc('/api/device/register'), { mac: 'ac-67-b2-50-00-02', name: 'in D', firmware_version: '4.0' }, tokenD)).body,
        { message: 'Device inserted!' },
      );
      assert.deepEqual((await getDevice(MAC, tokenC)).body, { mac: MAC, name: 'in C', 'firmware-version': '3.0' });
      assert.deepEqual((await getDevice(MAC, tokenD)).body, { mac: MAC, name: 'in D', 'firmware-version': '4.0' });
      assert.deepEqual((await get(vc('/api/device/'), tokenD)).body, [{ mac: MAC, name: 'in D', 'firmware-version': '4.0' }]);
    });

    it("keeps each tenant's version, chain record and deletion to itself", async () => {
      assert.equal((await post(vc('/api/device/next/rollout'), { mac: MAC, firmware_version: '3.1' }, tokenC)).status, 200);
      assert.equal(((await getDevice(MAC, tokenD)).body as Record<string, string>)['firmware-version'], '4.0');
      const fwC = await app.publishFirmware(c, '3.1', Buffer.from('C 3.1'));
      await app.publishFirmware(c, '4.0', Buffer.from('C 4.0 for ESP8266'), 'ESP8266');
      assert.deepEqual((await get(`${app.urls.bc}/device/${MAC}`, tokenC)).body, { mac: MAC, fwId: String(fwC.id), dType: 'ESP32' });
      // Tenant C's ESP8266 firmware 4.0 is not tenant D's: D's device has no fwId.
      assert.deepEqual((await get(`${app.urls.bc}/device/${MAC}`, tokenD)).body, { mac: MAC, fwId: '', dType: 'ESP8266' });
      assert.deepEqual((await request('DELETE', vc('/api/device/'), { token: tokenD, body: { mac: MAC } })).body, {
        message: 'Device deleted!',
      });
      assert.deepEqual((await getDevice(MAC, tokenC)).body, { mac: MAC, name: 'in C', 'firmware-version': '3.1' });
      assert.equal((await get(`${app.urls.bc}/device/${MAC}`, tokenC)).status, 200);
      assert.equal((await get(`${app.urls.bc}/device/${MAC}`, tokenD)).status, 404);
    });

    it("does not offer tenant A's rollout to tenant B's device with the same mac, nor accept its success", async () => {
      assert.deepEqual((await post(vc('/api/device/register'), { mac: MAC_A, name: 'B twin', firmware_version: '1.0' }, tokenB)).body, {
        message: 'Device inserted!',
      });
      const nextB = await post(vc('/api/device/next/rollout'), { mac: MAC_A, firmware_version: '1.0' }, tokenB);
      assert.equal(nextB.status, 200);
      assert.deepEqual(nextB.body, {});
      const successB = await post(
        vc('/api/device/success/rollout'),
        { mac: MAC_A, firmware_version: '2.0', rollout_id: String(rolloutA.id) },
        tokenB,
      );
      assert.deepEqual(seen(successB), { status: 404, body: { message: 'Rollout not found' } });
      // Tenant A's device is still offered its rollout and still the first to report it.
      const nextA = await post(vc('/api/device/next/rollout'), { mac: MAC_A, firmware_version: '1.0' }, tokenA);
      assert.equal((nextA.body as { rollout_id?: string }).rollout_id, String(rolloutA.id));
      const successA = await post(
        vc('/api/device/success/rollout'),
        { mac: MAC_A, firmware_version: '2.0', rollout_id: String(rolloutA.id) },
        tokenA,
      );
      assert.deepEqual(successA.body, { message: 'Successfully inserted!' });
      assert.equal(((await getDevice(MAC_A, tokenB)).body as Record<string, string>)['firmware-version'], '1.0');
      // Tenant B's twin resolves to B's record on the chain, never to A's firmware.
      assert.deepEqual((await get(`${app.urls.bc}/device/${MAC_A}`, tokenB)).body, { mac: MAC_A, fwId: '', dType: 'ESP32' });
    });
  });
});
