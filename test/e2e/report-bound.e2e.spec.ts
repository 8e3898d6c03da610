import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PdfRenderMessages } from '#src/protocols/asvin/report/pdf-report.renderer.js';
import { get, startTestApp, type Answer, type TestApp, type TestTenant } from '#test/support/harness.js';
import { insertDevices } from '#test/support/devices.js';
import { pdfText } from '#test/support/pdf-text.js';

/** A PDF request whose answer is read later: its status and headers now, its body on demand. */
interface PendingPdf {
  response: Response;
  bytes(): Promise<Buffer>;
}

/**
 * PDF reports render in worker threads, a bounded number at once (per tenant and per process):
 * more are refused at once with 429 / 503, `{"message"}` and `Retry-After`, and the server keeps
 * serving devices meanwhile.
 */
describe('PDF reports: bounded concurrent renders (429 per tenant, 503 per process)', () => {
  let app: TestApp;
  /** Tenants with enough devices that a render lasts seconds (4,000 rows: four chunks). */
  const busy: { tenant: TestTenant; token: string }[] = [];
  let idle: { tenant: TestTenant; token: string };

  const pdfUrl = () => `${app.urls.vc}/api/report/pdf`;
  /** Sends the request and waits for its status and headers (a PDF's come with its first bytes). */
  const open = async (token: string, signal?: AbortSignal): Promise<PendingPdf> => {
    const response = await fetch(pdfUrl(), { headers: { 'x-access-token': token }, signal });
    return { response, bytes: async () => Buffer.from(await response.arrayBuffer()) };
  };
  const refused = async (pending: PendingPdf, status: number, message: string) => {
    assert.equal(pending.response.status, status);
    assert.match(pending.response.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(JSON.parse((await pending.bytes()).toString('utf8')), { message });
    assert.match(pending.response.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
  };

  before(async () => {
    app = await startTestApp();
    for (const name of ['busy-a', 'busy-b']) {
      const tenant = await app.createTenant(name);
      await insertDevices(app, tenant, 4000);
      busy.push({ tenant, token: await app.login(tenant) });
    }
    const tenant = await app.createTenant('idle');
    await insertDevices(app, tenant, 10);
    idle = { tenant, token: await app.login(tenant) };
  });
  after(() => app.close());

  it('refuses a second render of a tenant (429) and a third of the process (503), keeps serving, then renders again', async () => {
    const first = await open(busy[0].token);
    assert.equal(first.response.status, 200);
    await refused(await open(busy[0].token), 429, PdfRenderMessages.tenantBusy);

    const second = await open(busy[1].token);
    assert.equal(second.response.status, 200);
    await refused(await open(idle.token), 503, PdfRenderMessages.processBusy);

    // Renders run off the event loop: health and device requests are answered meanwhile.
    const started = performance.now();
    const health = await get(`${app.urls.vc}/healthz`);
    assert.equal(health.status, 200);
    const devices: Answer = await get(`${app.urls.vc}/api/device/`, idle.token);
    assert.equal(devices.status, 200);
    assert.equal((devices.body as unknown[]).length, 10);
    assert.ok(performance.now() - started < 2000, `health and a device list took ${(performance.now() - started).toFixed(0)} ms`);

    for (const pending of [first, second]) {
      const pdf = await pending.bytes();
      assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
      assert.match(await pdfText(pdf), /Devices:\s*4000\b/);
    }

    // Both renders are done: their places are free again.
    const again = await open(idle.token);
    assert.equal(again.response.status, 200);
    assert.match(await pdfText(await again.bytes()), /Devices:\s*10\b/);
  });

  it('frees the place of a client that goes away mid-report', async () => {
    const abort = new AbortController();
    const first = await open(busy[0].token, abort.signal);
    assert.equal(first.response.status, 200);
    abort.abort();
    let answer: PendingPdf | undefined;
    for (let attempt = 0; attempt < 50; attempt++) {
      answer = await open(busy[0].token);
      if (answer.response.status === 200) break;
      await refused(answer, 429, PdfRenderMessages.tenantBusy);
      await new Promise((wake) => setTimeout(wake, 100));
    }
    assert.equal(answer?.response.status, 200, 'the place was never freed');
    assert.match(await pdfText(await answer.bytes()), /Devices:\s*4000\b/);
  });
});

/** A PDF lists at most REPORT_PDF_MAX_DEVICES devices; past it the answer says why and what to use instead. */
describe('PDF reports: at most REPORT_PDF_MAX_DEVICES devices (422 naming the json and xml reports)', () => {
  let app: TestApp;
  let large: string;
  let small: string;

  before(async () => {
    app = await startTestApp({ REPORT_PDF_MAX_DEVICES: '25' });
    const big = await app.createTenant('over-the-bound');
    await insertDevices(app, big, 26);
    large = await app.login(big);
    const fits = await app.createTenant('at-the-bound');
    await insertDevices(app, fits, 25);
    small = await app.login(fits);
  });
  after(() => app.close());

  it('refuses the PDF of a tenant past the bound, in words, and still serves its json and xml reports', async () => {
    const refused: Answer = await get(`${app.urls.vc}/api/report/pdf`, large);
    assert.equal(refused.status, 422);
    assert.deepEqual(refused.body, {
      message:
        'A PDF report lists at most 25 devices (REPORT_PDF_MAX_DEVICES) and this tenant has 26: use the json or xml report, which stream any number of devices',
    });
    const json = await get(`${app.urls.vc}/api/report/json`, large);
    assert.equal(json.status, 200);
    assert.equal((json.body as unknown[]).length, 26);
    const xml = await fetch(`${app.urls.vc}/api/report/xml`, { headers: { 'x-access-token': large } });
    assert.equal(xml.status, 200);
    assert.equal((await xml.text()).match(/<element>/g)?.length, 26);
  });

  it('renders the PDF of a tenant at the bound', async () => {
    const response = await fetch(`${app.urls.vc}/api/report/pdf`, { headers: { 'x-access-token': small } });
    assert.equal(response.status, 200);
    assert.match(await pdfText(Buffer.from(await response.arrayBuffer())), /Devices:\s*25\b/);
  });
});
