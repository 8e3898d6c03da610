import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { deviceSignature } from '#src/protocols/asvin/auth/signature.js';
import { RolloutPlanService } from '#src/domain/rollout/rollout-plan.service.js';
import { get, post, request, startTestApp, type TestApp, type TestTenant } from '#test/support/harness.js';
import { parseExposition, samplesOf, valueOf, type Sample } from '#test/support/prometheus.js';

// README "Operations": Prometheus metrics at {operator_url}/metrics only.

const MAC = '02:00:00:00:4D:01';
const OTHER_MAC = '02:00:00:00:4D:02';

describe('metrics', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let token: string;

  /** Scrapes the operator listener and parses the answer. */
  async function scrape(): Promise<Sample[]> {
    const answer = await get(`${app.urls.operator}/metrics`);
    assert.equal(answer.status, 200, answer.text);
    return parseExposition(answer.text);
  }

  before(async () => {
    // The version controller under a path prefix: route labels carry the prefix as mounted.
    app = await startTestApp({}, { VC_URL: 'http://127.0.0.1:{port1}/fleet' });
    tenant = await app.createTenant();
    token = await app.login(tenant);
  });
  after(() => app.close());

  it('answers in the Prometheus text format on the operator listener, and nowhere else', async () => {
    const answer = await get(`${app.urls.operator}/metrics`);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    assert.match(answer.text, /^# HELP http_requests_total /m);
    assert.match(answer.text, /^# TYPE http_request_duration_seconds histogram$/m);
    assert.match(answer.text, /^process_cpu_user_seconds_total /m, 'default process metrics');
    for (const base of [app.urls.auth, app.urls.vc, app.urls.bc, new URL(app.urls.vc).origin]) {
      const elsewhere = await get(`${base}/metrics`);
      assert.equal(elsewhere.status, 404, `${base}/metrics`);
      assert.deepEqual(elsewhere.body, { message: 'Not Found' });
    }
  });

  it('counts a request under its route pattern as mounted, its status and component, never the raw URL', async () => {
    assert.equal((await post(`${app.urls.vc}/api/device/register`, { mac: MAC, firmware_version: '1.0.0' }, token)).status, 200);
    assert.equal((await get(`${app.urls.vc}/api/device/${MAC}`, token)).status, 200);
    assert.equal((await get(`${app.urls.vc}/api/device/${OTHER_MAC}`, token)).status, 404);
    assert.equal((await get(`${app.urls.vc}/api/device/${MAC}`)).status, 401);

    const samples = await scrape();
    const route = '/fleet/api/device/:mac';
    const labels = (status: string) => ({ method: 'GET', route, status_code: status, component: 'vc' });
    assert.equal(valueOf(samples, 'http_requests_total', labels('200')), 1);
    assert.equal(valueOf(samples, 'http_requests_total', labels('404')), 1);
    assert.equal(valueOf(samples, 'http_requests_total', labels('401')), 1);
    assert.equal(valueOf(samples, 'http_request_duration_seconds_count', labels('200')), 1);
    assert.equal(valueOf(samples, 'http_request_duration_seconds_bucket', { ...labels('200'), le: '+Inf' }), 1);
    assert.ok((valueOf(samples, 'http_request_duration_seconds_sum', labels('200')) ?? -1) > 0);
    assert.equal(
      valueOf(samples, 'http_requests_total', { method: 'POST', route: '/fleet/api/device/register', status_code: '200', component: 'vc' }),
      1,
    );
    assert.equal(
      valueOf(samples, 'http_requests_total', { method: 'POST', route: '/auth/login', status_code: '200', component: 'auth' }),
      1,
    );
    const routes = new Set(samplesOf(samples, 'http_requests_total').map((s) => s.labels['route']));
    assert.ok(![...routes].some((r) => r?.includes(MAC) || r?.includes(OTHER_MAC)), `raw URLs in route labels: ${[...routes].join(', ')}`);
  });

  it('counts requests no route matched as "unmatched", with the component whose prefix they are under', async () => {
    const before = await scrape();
    assert.equal((await get(`${app.urls.vc}/no/such/route?token=abc`)).status, 404);
    assert.equal((await get(`${new URL(app.urls.vc).origin}/elsewhere`)).status, 404);
    const after = await scrape();
    for (const component of ['vc', 'none']) {
      const labels = { method: 'GET', route: 'unmatched', status_code: '404', component };
      assert.equal(
        (valueOf(after, 'http_requests_total', labels) ?? 0) - (valueOf(before, 'http_requests_total', labels) ?? 0),
        1,
        component,
      );
    }
  });

  it('counts logins by outcome: success, bad signature, unknown key, replay, stale timestamp', async () => {
    const before = await scrape();
    const count = (samples: Sample[], outcome: string) => valueOf(samples, 'firmledger_logins_total', { outcome }) ?? NaN;
    const now = Math.floor(app.clock.now() / 1000);
    const body = (timestamp: number, signature = deviceSignature(tenant.customerKey, String(timestamp), tenant.deviceKey)) => ({
      device_key: tenant.deviceKey,
      timestamp,
      device_signature: signature,
    });
    const single = await app.createDeviceKey(tenant, tenant.deviceType, { singleDevice: true });
    const once = { ...body(now - 10), device_key: single.deviceKey };
    once.device_signature = deviceSignature(single.customerKey, String(now - 10), single.deviceKey);
    assert.equal((await post(`${app.urls.auth}/auth/login`, once)).status, 200);
    assert.equal((await post(`${app.urls.auth}/auth/login`, once)).status, 401, 'replay of a single-device key');
    assert.equal((await post(`${app.urls.auth}/auth/login`, body(now - 11, 'ab'.repeat(32)))).status, 401, 'bad signature');
    assert.equal((await post(`${app.urls.auth}/auth/login`, body(now - 100_000))).status, 401, 'stale');
    const unknown = { ...body(now - 12), device_key: 'no-such-key' };
    assert.equal((await post(`${app.urls.auth}/auth/login`, unknown)).status, 401, 'unknown key');
    const after = await scrape();
    for (const [outcome, delta] of [
      ['success', 1],
      ['replay', 1],
      ['bad_signature', 1],
      ['stale_timestamp', 1],
      ['unknown_key', 1],
      ['revoked_key', 0],
      ['rate_limited', 0],
    ] as const) {
      assert.equal(count(after, outcome) - count(before, outcome), delta, outcome);
    }
  });

  it('follows a rollout: targeted, updated, pending and devices per state by tenant and rollout, only while it runs', async () => {
    const firmware = await app.publishFirmware(tenant, '1.1.0', Buffer.from('firmware 1.1.0'));
    // Both members registered: targets of the rollout (docs/decisions.md §10).
    assert.equal((await post(`${app.urls.vc}/api/device/register`, { mac: OTHER_MAC, firmware_version: '1.0.0' }, token)).status, 200);
    await app.createGroup(tenant, 'metrics-group', [MAC, OTHER_MAC]);
    const draft = await app.createRollout(tenant, { firmwareId: firmware.id, group: 'metrics-group', start: false });
    const labels = { tenant: tenant.name, rollout: String(draft.id) };
    assert.equal(samplesOf(await scrape(), 'firmledger_rollout_targeted', labels).length, 0, 'a draft is not exported');

    await app.server.app.get(RolloutPlanService).apply(tenant.id, draft.id, 'start');
    let samples = await scrape();
    assert.equal(valueOf(samples, 'firmledger_rollout_targeted', { ...labels, status: 'active' }), 2);
    assert.equal(valueOf(samples, 'firmledger_rollout_updated', { ...labels, status: 'active' }), 0);
    assert.equal(valueOf(samples, 'firmledger_rollout_pending', { ...labels, status: 'active' }), 2);

    const next = await post(`${app.urls.vc}/api/device/next/rollout`, { mac: MAC, firmware_version: '1.0.0' }, token);
    assert.equal((next.body as { rollout_id?: string }).rollout_id, String(draft.id), next.text);
    const success = await post(
      `${app.urls.vc}/api/device/success/rollout`,
      { mac: MAC, firmware_version: '1.1.0', rollout_id: String(draft.id) },
      token,
    );
    assert.deepEqual(success.body, { message: 'Successfully inserted!' });
    samples = await scrape();
    assert.equal(valueOf(samples, 'firmledger_rollout_targeted', labels), 2);
    assert.equal(valueOf(samples, 'firmledger_rollout_updated', labels), 1);
    assert.equal(valueOf(samples, 'firmledger_rollout_pending', labels), 1);
    // Per state (docs/decisions.md §10): the report of the target version confirmed it at once.
    for (const [state, devices] of [
      ['pending', 1],
      ['offered', 0],
      ['installed', 0],
      ['confirmed', 1],
      ['failed', 0],
      ['fell_back', 0],
      ['timed_out', 0],
    ] as const) {
      assert.equal(valueOf(samples, 'firmledger_rollout_devices', { ...labels, state }), devices, state);
    }
  });

  it('counts a rate-limited login', async () => {
    const limited = await startTestApp({ LOGIN_RATE_LIMIT: '1' });
    try {
      const other = await limited.createTenant();
      const body = { device_key: other.deviceKey, timestamp: 1, device_signature: 'x' };
      assert.equal((await post(`${limited.urls.auth}/auth/login`, body)).status, 401);
      assert.equal((await post(`${limited.urls.auth}/auth/login`, body)).status, 429);
      const samples = parseExposition((await request('GET', `${limited.urls.operator}/metrics`)).text);
      assert.equal(valueOf(samples, 'firmledger_logins_total', { outcome: 'rate_limited' }), 1);
      assert.equal(valueOf(samples, 'firmledger_logins_total', { outcome: 'bad_signature' }), 1);
    } finally {
      await limited.close();
    }
  });
});
