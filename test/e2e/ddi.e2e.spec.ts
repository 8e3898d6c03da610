import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { post, request, startTestApp, type Answer, type TestApp } from '#test/support/harness.js';
import type { DeviceRolloutBody, RolloutBody } from '#test/support/rollouts.js';
import { JSON_MAX_DEPTH, JsonTextMessages } from '#src/platform/common/json-text.js';

/**
 * The DDI component over plain HTTP (docs/decisions.md §11, §12): the status codes, bodies,
 * credentials, tenancy, throttling and bad input of hawkBit's Direct Device Integration API as
 * firmledger answers them, on both engines. The real client's flows are in ddi-swupdate.e2e.
 */
describe('hawkBit DDI component (docs/decisions.md §12)', () => {
  let app: TestApp;
  let bearer: string;
  let counter = 0;

  /** Failed credentials allowed per address and subject before 429. */
  const LIMIT = 4;

  const operator = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const answer = await request(method, `${app.urls.operator}${path}`, { bearer, body });
    assert.ok(answer.status === 200 || answer.status === 201, `${method} ${path}: ${answer.status} ${answer.text}`);
    return answer.body as Record<string, unknown>;
  };

  /** A DDI request as a client sends it: JSON, with the credential given (`TargetToken x`, `GatewayToken y`, or none). */
  const ddi = (
    method: string,
    path: string,
    authorization?: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> =>
    request(method, `${app.urls.ddi}${path}`, {
      headers: {
        ...(authorization ? { authorization } : {}),
        ...(typeof body === 'string' ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(typeof body === 'string' ? { rawBody: body } : { body }),
    });

  /** A tenant with firmware `2.0.0` of type `board` (`fw-2.0.0.swu`), and a device key of that type flagged as a gateway token. */
  const setUp = async (): Promise<{ tenant: string; firmwareId: number; bytes: Buffer; gateway: string }> => {
    const tenant = `ddi-${++counter}-${Date.now()}`;
    await operator('POST', '/tenants', { name: tenant });
    const bytes = Buffer.from(`image 2.0.0 of ${tenant} `.repeat(100));
    const published = await request(
      'POST',
      `${app.urls.operator}/tenants/${tenant}/firmware?version=2.0.0&device_type=board&filename=fw-2.0.0.swu`,
      {
        bearer,
        rawBody: bytes,
        headers: { 'content-type': 'application/octet-stream' },
      },
    );
    assert.equal(published.status, 201, published.text);
    const gateway = (await operator('POST', `/tenants/${tenant}/device-keys`, { device_type: 'board', ddi_gateway: true })).key as string;
    return { tenant, firmwareId: (published.body as { id: number }).id, bytes, gateway };
  };

  /** Creates a device; its `TargetToken …` header value. */
  const create = async (tenant: string, controllerId: string, deviceType = 'board'): Promise<string> =>
    `TargetToken ${(await operator('POST', `/tenants/${tenant}/devices`, { controller_id: controllerId, device_type: deviceType })).target_token as string}`;

  /** A started rollout of the tenant's firmware to a new group of `members`; its id. */
  const rollOut = async (tenant: string, firmwareId: number, members: string[], extra: Record<string, unknown> = {}): Promise<number> => {
    const name = `group-${++counter}`;
    await operator('POST', `/tenants/${tenant}/groups`, { name, macs: members });
    const created = await operator('POST', `/tenants/${tenant}/rollouts`, {
      name,
      firmware_id: firmwareId,
      group: name,
      start_date: '2020-01-01 00:00:00',
      ...extra,
    });
    await operator('POST', `/tenants/${tenant}/rollouts/${String(created.id)}/start`);
    return created.id as number;
  };

  const stateIn = async (tenant: string, device: string, rolloutId: number): Promise<DeviceRolloutBody | undefined> =>
    ((await operator('GET', `/tenants/${tenant}/devices/${device}/rollouts`)) as unknown as DeviceRolloutBody[]).find(
      (r) => r.rollout_id === rolloutId,
    );

  const base = (tenant: string, device: string) => `/${tenant}/controller/v1/${device}`;

  /**
   * A fleet of asvin devices as the asvin interface makes one: a tenant whose device key (not a
   * gateway token) logged a device `mac` in and registered it; and a DDI device `ddi-1` of the
   * tenant with its own target token.
   */
  const asvinFleet = async (mac: string) => {
    const fleet = await app.createTenant(`ddi-fleet-${++counter}-${Date.now()}`, 'board');
    const registered = await post(`${app.urls.vc}/api/device/register`, { mac, firmware_version: '1.0.0' }, await app.login(fleet));
    assert.deepEqual(registered.body, { message: 'Device inserted!' });
    return { fleet, targetToken: await create(fleet.name, 'ddi-1') };
  };

  const refused = (answer: Answer, what: string): void =>
    assert.deepEqual([answer.status, answer.body], [401, { message: 'A valid TargetToken or GatewayToken is required' }], what);

  const feedback = (execution: string, finished: string, details: string[] = []) => ({
    id: 7,
    time: '20261126T105143',
    status: { result: { progress: { cnt: 3, of: 1 }, finished }, execution, details },
  });

  before(async () => {
    app = await startTestApp({ LOGIN_RATE_LIMIT: String(LIMIT) });
    bearer = await app.createOperatorToken('ddi-spec');
  });
  after(() => app.close());

  describe('credentials and tenancy', () => {
    it('refuses a request without a credential, with a wrong target token, or for an unknown tenant or device: one 401', async () => {
      const { tenant } = await setUp();
      const token = await create(tenant, 'auth-1');
      const refusals = [
        await ddi('GET', base(tenant, 'auth-1')),
        await ddi('GET', base(tenant, 'auth-1'), 'TargetToken wrong'),
        await ddi('GET', base(tenant, 'auth-1'), `Bearer ${token.slice('TargetToken '.length)}`),
        await ddi('GET', base(tenant, 'auth-1'), token.replace('TargetToken ', 'targettoken ')),
        await ddi('GET', base(`${tenant}-unknown`, 'auth-1'), token),
        await ddi('GET', base(tenant, 'auth-unknown'), token),
      ];
      for (const answer of refusals) {
        assert.deepEqual([answer.status, answer.body], [401, { message: 'A valid TargetToken or GatewayToken is required' }], answer.text);
      }
      assert.equal((await ddi('GET', base(tenant, 'auth-1'), token)).status, 200);
    });

    it('never reaches another tenant’s device: its token, a device key of the other tenant and a revoked key are refused', async () => {
      const a = await setUp();
      const b = await setUp();
      const tokenA = await create(a.tenant, 'shared-name');
      await create(b.tenant, 'shared-name');
      assert.equal((await ddi('GET', base(b.tenant, 'shared-name'), tokenA)).status, 401, 'a device of tenant a under tenant b');
      assert.equal((await ddi('GET', base(a.tenant, 'gw-1'), `GatewayToken ${b.gateway}`)).status, 401, 'b’s device key under a');
      const keys = (await operator('GET', `/tenants/${a.tenant}/device-keys`)) as { items: { id: number; key: string }[] };
      const key = keys.items.find((k) => k.key === a.gateway)!;
      await operator('POST', `/tenants/${a.tenant}/device-keys/${key.id}/revoke`);
      assert.equal((await ddi('GET', base(a.tenant, 'gw-1'), `GatewayToken ${a.gateway}`)).status, 401, 'a revoked key');
      assert.equal((await operator('GET', `/tenants/${a.tenant}/devices?q=gw-1`)).total, 0, 'nothing was registered');
    });

    it('registers a device on its first poll with a gateway token, of the key’s type, once', async () => {
      const { tenant, gateway } = await setUp();
      const [first, second] = await Promise.all([
        ddi('GET', base(tenant, 'gw-new'), `GatewayToken ${gateway}`),
        ddi('GET', base(tenant, 'gw-new'), `GatewayToken ${gateway}`),
      ]);
      assert.deepEqual([first.status, second.status], [200, 200]);
      const device = await operator('GET', `/tenants/${tenant}/devices/gw-new`);
      assert.deepEqual(
        [device.protocol, device.device_type, device.has_target_token, device.firmware_version],
        ['ddi', 'board', false, ''],
      );
      assert.ok(device.last_seen_at !== null);
    });

    it('refuses a device key that is not a gateway token (an asvin fleet key) for every device, as a failed credential', async () => {
      const { fleet, targetToken } = await asvinFleet('AC:67:B2:0D:E0:01');
      const gateway = `GatewayToken ${fleet.deviceKey}`;
      refused(await ddi('GET', base(fleet.name, 'AC:67:B2:0D:E0:01'), gateway), 'the asvin device the key logged in');
      refused(await ddi('GET', base(fleet.name, 'ac67b20de001'), gateway), 'the same, as another notation');
      refused(await ddi('GET', base(fleet.name, 'ddi-1'), gateway), 'a DDI device');
      refused(await ddi('GET', base(fleet.name, 'ddi-new'), gateway), 'a controller id the tenant does not know');
      const over = await ddi('GET', base(fleet.name, 'ddi-new'), gateway);
      assert.equal(over.status, 429, 'counted like every failed credential');
      assert.equal((await operator('GET', `/tenants/${fleet.name}/devices?q=ddi-new`)).total, 0, 'nothing was registered');
      const device = await operator('GET', `/tenants/${fleet.name}/devices/AC:67:B2:0D:E0:01`);
      assert.deepEqual([device.protocol, device.firmware_version], ['asvin', '1.0.0']);
      assert.equal((await ddi('GET', base(fleet.name, 'ddi-1'), targetToken)).status, 200, 'target tokens are unchanged');
      const keys = (await operator('GET', `/tenants/${fleet.name}/device-keys`)) as { items: { key: string; ddi_gateway: boolean }[] };
      assert.deepEqual(
        keys.items.map((k) => [k.key, k.ddi_gateway]),
        [[fleet.deviceKey, false]],
      );
    });

    it('a gateway token speaks for every DDI device of the tenant, the target token’s too, and never for an asvin device', async () => {
      const { fleet } = await asvinFleet('AC:67:B2:0D:E0:02');
      const created = await operator('POST', `/tenants/${fleet.name}/device-keys`, { device_type: 'board', ddi_gateway: true });
      assert.equal(created.ddi_gateway, true);
      const gateway = `GatewayToken ${created.key as string}`;
      refused(await ddi('GET', base(fleet.name, 'AC:67:B2:0D:E0:02'), gateway), 'an asvin device of the tenant');
      refused(
        await ddi('POST', `${base(fleet.name, 'AC:67:B2:0D:E0:02')}/deploymentBase/1/feedback`, gateway, feedback('closed', 'failure')),
        'its feedback',
      );
      const device = await operator('GET', `/tenants/${fleet.name}/devices/AC:67:B2:0D:E0:02`);
      assert.deepEqual(
        [device.protocol, device.firmware_version, device.attributes],
        ['asvin', '1.0.0', null],
        'the asvin device is untouched',
      );
      assert.equal((await ddi('GET', base(fleet.name, 'ddi-1'), gateway)).status, 200, 'a DDI device with its own target token');
      assert.equal((await ddi('GET', base(fleet.name, 'ddi-new'), gateway)).status, 200, 'a new controller id');
      assert.equal((await operator('GET', `/tenants/${fleet.name}/devices/ddi-new`)).protocol, 'ddi');
    });

    it('flags an existing key as a gateway token and unflags it (PUT …/ddi-gateway), from the next request on', async () => {
      const { fleet } = await asvinFleet('AC:67:B2:0D:E0:03');
      const gateway = `GatewayToken ${fleet.deviceKey}`;
      refused(await ddi('GET', base(fleet.name, 'ddi-1'), gateway), 'before it is flagged');
      const flagged = await operator('PUT', `/tenants/${fleet.name}/device-keys/${fleet.deviceKeyId}/ddi-gateway`, { ddi_gateway: true });
      assert.deepEqual([flagged.id, flagged.ddi_gateway], [fleet.deviceKeyId, true]);
      assert.equal((await ddi('GET', base(fleet.name, 'ddi-1'), gateway)).status, 200, 'flagged');
      await operator('PUT', `/tenants/${fleet.name}/device-keys/${fleet.deviceKeyId}/ddi-gateway`, { ddi_gateway: false });
      refused(await ddi('GET', base(fleet.name, 'ddi-1'), gateway), 'unflagged');
      const bad = await request('PUT', `${app.urls.operator}/tenants/${fleet.name}/device-keys/${fleet.deviceKeyId}/ddi-gateway`, {
        bearer,
        body: { ddi_gateway: 'yes' },
      });
      assert.deepEqual([bad.status, bad.body], [400, { message: 'ddi_gateway must be true or false', field: 'ddi_gateway' }]);
      refused(await ddi('GET', base(fleet.name, 'ddi-1'), gateway), 'a refused change changes nothing');
    });

    it('rotates a target token: the old one stops working at once, the new one works', async () => {
      const { tenant } = await setUp();
      const old = await create(tenant, 'rotate-1');
      const rotated = await operator('POST', `/tenants/${tenant}/devices/rotate-1/target-token/rotate`);
      assert.equal((await ddi('GET', base(tenant, 'rotate-1'), old)).status, 401);
      assert.equal((await ddi('GET', base(tenant, 'rotate-1'), `TargetToken ${rotated.target_token as string}`)).status, 200);
    });

    it('throttles wrong tokens like failed logins, without ever refusing a valid one from the same address', async () => {
      const { tenant } = await setUp();
      const token = await create(tenant, 'throttle-1');
      for (let i = 0; i < LIMIT; i++) assert.equal((await ddi('GET', base(tenant, 'throttle-1'), `TargetToken guess-${i}`)).status, 401);
      const over = await ddi('GET', base(tenant, 'throttle-1'), 'TargetToken guess-last');
      assert.deepEqual([over.status, over.body], [429, { message: 'Too many requests in this time frame' }]);
      assert.match(over.headers.get('retry-after') ?? '', /^\d+$/);
      assert.equal((await ddi('GET', base(tenant, 'throttle-1'), token)).status, 200, 'the valid token still works from this address');
    });

    it('takes a hardware address as a controller id in any notation, and refuses one a URL cannot carry (400)', async () => {
      const { tenant } = await setUp();
      const token = await create(tenant, 'ac-67-b2-0d-d1-01');
      assert.equal((await ddi('GET', base(tenant, 'AC67B20DD101'), token)).status, 200);
      assert.equal((await operator('GET', `/tenants/${tenant}/devices/AC:67:B2:0D:D1:01`)).protocol, 'ddi');
      const spaced = await ddi('GET', base(tenant, 'two%20words'), token);
      assert.deepEqual([spaced.status, (spaced.body as { message: string }).message.startsWith('controllerId must be')], [400, true]);
    });
  });

  describe('root, deployment, feedback', () => {
    it('answers the polling interval, absolute links, and configData until the device sent attributes', async () => {
      const { tenant } = await setUp();
      const token = await create(tenant, 'root-1');
      let root = await ddi('GET', base(tenant, 'root-1'), token);
      assert.equal(root.status, 200);
      assert.deepEqual(root.body, {
        config: { polling: { sleep: '00:05:00' } },
        _links: { configData: { href: `${app.urls.ddi}${base(tenant, 'root-1')}/configData` } },
      });
      await operator('PUT', `/tenants/${tenant}/ddi-polling`, { sleep: '00:00:01' });
      const put = await ddi('PUT', `${base(tenant, 'root-1')}/configData`, token, { data: { serial: 'SN-1', rev: '' } });
      assert.deepEqual([put.status, put.text], [200, ''], 'answered 200 without a body (clients treat 201 and 204 as errors)');
      root = await ddi('GET', base(tenant, 'root-1'), token);
      assert.deepEqual(root.body, { config: { polling: { sleep: '00:00:01' } }, _links: {} });
    });

    it('keeps attributes by merge (the default), replace and remove, shown to operators; refuses what hawkBit refuses', async () => {
      const { tenant } = await setUp();
      const token = await create(tenant, 'attrs-1');
      const path = `${base(tenant, 'attrs-1')}/configData`;
      const attributes = async () => (await operator('GET', `/tenants/${tenant}/devices/attrs-1`)).attributes;
      await ddi('PUT', path, token, {
        id: '',
        time: '20261126T105300',
        status: { result: { finished: 'success' }, execution: 'closed' },
        data: { a: '1', b: '2' },
      });
      await ddi('PUT', path, token, { data: { b: '3', c: '4' } });
      assert.deepEqual(await attributes(), { a: '1', b: '3', c: '4' });
      await ddi('PUT', path, token, { data: { a: 'x' }, mode: 'remove' });
      assert.deepEqual(await attributes(), { b: '3', c: '4' });
      await ddi('PUT', path, token, { data: { only: 'this' }, mode: 'replace' });
      assert.deepEqual(await attributes(), { only: 'this' });
      for (const body of [{}, { data: {} }, { data: { a: 1 } }, { data: { a: 'x'.repeat(129) } }, { data: { a: 'b' }, mode: 'append' }]) {
        assert.equal((await ddi('PUT', path, token, body)).status, 400, JSON.stringify(body));
      }
    });

    it('offers a deployment with the firmware as its chunk, its file name, hashes and links, per action type', async () => {
      const { tenant, firmwareId, bytes } = await setUp();
      const tokens = await Promise.all(['type-f', 'type-s', 'type-d'].map((id) => create(tenant, id)));
      const ids = [
        await rollOut(tenant, firmwareId, ['type-f']),
        await rollOut(tenant, firmwareId, ['type-s'], { ddi_action_type: 'soft' }),
        await rollOut(tenant, firmwareId, ['type-d'], { ddi_action_type: 'download-only' }),
      ];
      const expected = [
        ['forced', 'forced'],
        ['attempt', 'attempt'],
        ['forced', 'skip'],
      ];
      for (const [i, device] of ['type-f', 'type-s', 'type-d'].entries()) {
        const root = (await ddi('GET', base(tenant, device), tokens[i])).body as { _links: { deploymentBase: { href: string } } };
        const href = root._links.deploymentBase.href;
        assert.match(href, new RegExp(`^${app.urls.ddi}${base(tenant, device)}/deploymentBase/${ids[i]}\\?c=\\d+$`));
        const answer = await request('GET', href, { headers: { authorization: tokens[i] } });
        assert.equal(answer.status, 200, answer.text);
        const file = `${app.urls.ddi}${base(tenant, device)}/softwaremodules/${firmwareId}/artifacts/fw-2.0.0.swu`;
        assert.deepEqual(answer.body, {
          id: String(ids[i]),
          deployment: {
            download: expected[i][0],
            update: expected[i][1],
            chunks: [
              {
                part: 'os',
                version: '2.0.0',
                name: 'board',
                artifacts: [
                  {
                    filename: 'fw-2.0.0.swu',
                    hashes: {
                      sha1: createHash('sha1').update(bytes).digest('hex'),
                      md5: createHash('md5').update(bytes).digest('hex'),
                      sha256: createHash('sha256').update(bytes).digest('hex'),
                    },
                    size: bytes.length,
                    _links: {
                      download: { href: file },
                      md5sum: { href: `${file}.MD5SUM` },
                      'download-http': { href: file },
                      'md5sum-http': { href: `${file}.MD5SUM` },
                    },
                  },
                ],
              },
            ],
          },
        });
      }
      assert.equal((await stateIn(tenant, 'type-f', ids[0]))?.state, 'offered', 'the root answer offered it');
    });

    it('maps feedback onto states: proceeding before the download changes nothing, the download, installed, confirmed, then 410', async () => {
      const { tenant, firmwareId, bytes } = await setUp();
      const token = await create(tenant, 'flow-1');
      const id = await rollOut(tenant, firmwareId, ['flow-1']);
      await ddi('GET', base(tenant, 'flow-1'), token);
      const post = (body: unknown) => ddi('POST', `${base(tenant, 'flow-1')}/deploymentBase/${id}/feedback`, token, body);

      const first = await post(feedback('proceeding', 'none', ['Installing Update Chunk Artifacts.']));
      assert.deepEqual([first.status, first.text], [200, '']);
      assert.equal((await stateIn(tenant, 'flow-1', id))?.state, 'offered');

      const artifact = `${base(tenant, 'flow-1')}/softwaremodules/${firmwareId}/artifacts/fw-2.0.0.swu`;
      const head = await ddi('HEAD', artifact, token);
      assert.deepEqual([head.status, head.headers.get('content-length')], [200, String(bytes.length)]);
      assert.equal((await stateIn(tenant, 'flow-1', id))?.state, 'offered', 'a HEAD is not a download');
      const whole = await ddi('GET', artifact, token);
      assert.equal(whole.status, 200);
      assert.ok(whole.bytes.equals(bytes));
      assert.equal(whole.headers.get('x-md5'), createHash('md5').update(bytes).digest('hex'));
      assert.match(whole.headers.get('etag') ?? '', /^"Qm/);
      assert.equal((await stateIn(tenant, 'flow-1', id))?.state, 'downloading');

      const logLines =
        '{ "id": 7, "time": "20261126T105143", "status": { "result": { "progress": { "cnt" : 1, "of" : 0 }, "finished": "none" }, ' +
        '"execution": "proceeding", "details" : [ "ERROR : some step\nwith a raw line feed", "SWUPDATE successful !" ] } }';
      assert.equal((await post(logLines)).status, 200, 'raw line feeds inside strings are accepted');
      assert.equal((await stateIn(tenant, 'flow-1', id))?.state, 'installed');
      const root = (await ddi('GET', base(tenant, 'flow-1'), token)).body as { _links: Record<string, unknown> };
      assert.ok('deploymentBase' in root._links, 'kept offered across the reboot until the device closes the action');
      assert.equal(
        (await ddi('GET', `${base(tenant, 'flow-1')}/installedBase/${id}`, token)).status,
        404,
        'open actions are not installed',
      );

      assert.equal((await post(feedback('closed', 'success', ['Update Installed.']))).status, 200);
      const confirmed = await stateIn(tenant, 'flow-1', id);
      assert.equal(confirmed?.state, 'confirmed');
      assert.equal((await operator('GET', `/tenants/${tenant}/devices/flow-1`)).firmware_version, '2.0.0');
      const closed = await post(feedback('closed', 'success'));
      assert.deepEqual([closed.status, closed.body], [410, { message: `Action ${id} is closed` }]);
      const links = ((await ddi('GET', base(tenant, 'flow-1'), token)).body as { _links: Record<string, { href: string } | undefined> })
        ._links;
      assert.equal(links['installedBase']?.href, `${app.urls.ddi}${base(tenant, 'flow-1')}/installedBase/${id}`);
      assert.equal(links['deploymentBase'], undefined);
      const installed = await ddi('GET', `${base(tenant, 'flow-1')}/installedBase/${id}?actionHistory=-1`, token);
      assert.equal(installed.status, 200);
      const history = (installed.body as { actionHistory: { status: string; messages: string[] } }).actionHistory;
      assert.equal(history.status, 'FINISHED');
      assert.deepEqual(
        history.messages.map((m) => m.split(' ')[0]),
        ['confirmed', 'installed', 'downloading', 'offered', 'pending'],
      );
    });

    it('a failure closes the action failed with its details and the errors reported before; a retry offers it again', async () => {
      const { tenant, firmwareId } = await setUp();
      const token = await create(tenant, 'fail-1');
      const id = await rollOut(tenant, firmwareId, ['fail-1']);
      await ddi('GET', base(tenant, 'fail-1'), token);
      const post = (body: unknown) => ddi('POST', `${base(tenant, 'fail-1')}/deploymentBase/${id}/feedback`, token, body);
      await post(
        feedback('proceeding', 'none', ['ERROR : Cannot read stored update state.', 'ERROR : HASH mismatch : a <--> b', 'Image invalid']),
      );
      await post(feedback('closed', 'failure', ['No suitable .swu image found']));
      const failed = await stateIn(tenant, 'fail-1', id);
      assert.equal(failed?.state, 'failed');
      assert.equal(failed?.failure_message, 'No suitable .swu image found (ERROR : HASH mismatch : a <--> b)');
      const closed = ((await ddi('GET', base(tenant, 'fail-1'), token)).body as { _links: Record<string, unknown> })._links;
      assert.ok(!('deploymentBase' in closed), 'a failed device is not offered the rollout again until a retry');

      await operator('POST', `/tenants/${tenant}/rollouts/${id}/retry`);
      assert.equal((await stateIn(tenant, 'fail-1', id))?.state, 'pending', 'a retry sends it back');
      const again = (await ddi('GET', base(tenant, 'fail-1'), token)).body as { _links: Record<string, unknown> };
      assert.ok('deploymentBase' in again._links, 'and the device is offered the rollout again');
    });

    it('download-only: confirmed once the device reports it downloaded, its version unchanged; closing without a download fails', async () => {
      const { tenant, firmwareId } = await setUp();
      const [a, b] = [await create(tenant, 'dl-a'), await create(tenant, 'dl-b')];
      const id = await rollOut(tenant, firmwareId, ['dl-a', 'dl-b'], { ddi_action_type: 'download-only' });
      for (const [device, token] of [
        ['dl-a', a],
        ['dl-b', b],
      ])
        await ddi('GET', base(tenant, device), token);
      await ddi('GET', `${base(tenant, 'dl-a')}/softwaremodules/${firmwareId}/artifacts/fw-2.0.0.swu`, a);
      await ddi('POST', `${base(tenant, 'dl-a')}/deploymentBase/${id}/feedback`, a, feedback('downloaded', 'none'));
      assert.equal((await stateIn(tenant, 'dl-a', id))?.state, 'confirmed');
      assert.equal((await operator('GET', `/tenants/${tenant}/devices/dl-a`)).firmware_version, '');
      await ddi('POST', `${base(tenant, 'dl-b')}/deploymentBase/${id}/feedback`, b, feedback('closed', 'success', ['Skipped Update.']));
      const skipped = await stateIn(tenant, 'dl-b', id);
      assert.deepEqual(
        [skipped?.state, skipped?.failure_message],
        ['failed', 'closed the download-only action without downloading the firmware; Skipped Update.'],
      );
    });

    it('answers 404 for an action the device does not have, 400 for ids and bodies hawkBit refuses too', async () => {
      const { tenant, firmwareId } = await setUp();
      const token = await create(tenant, 'bad-1');
      await create(tenant, 'bad-other');
      const other = await rollOut(tenant, firmwareId, ['bad-other']);
      const draft = await operator('POST', `/tenants/${tenant}/rollouts`, {
        name: 'draft',
        firmware_id: firmwareId,
        group: `group-${counter}`,
        start_date: '2020-01-01 00:00:00',
      });
      for (const id of [other, draft.id as number, 2147483647, 99999999999]) {
        for (const path of [`deploymentBase/${id}`, `cancelAction/${id}`, `installedBase/${id}`]) {
          const answer = await ddi('GET', `${base(tenant, 'bad-1')}/${path}`, token);
          assert.deepEqual([answer.status, answer.body], [404, { message: `Action ${id} not found` }], path);
        }
        assert.equal(
          (await ddi('POST', `${base(tenant, 'bad-1')}/deploymentBase/${id}/feedback`, token, feedback('closed', 'success'))).status,
          404,
        );
      }
      const word = await ddi('GET', `${base(tenant, 'bad-1')}/deploymentBase/abc`, token);
      assert.deepEqual([word.status, word.body], [400, { message: 'actionId must be a decimal number' }]);
      for (const [body, message] of [
        [{}, 'status must be an object with execution and result'],
        [
          { status: { execution: 'done', result: { finished: 'success' } } },
          'status.execution must be one of closed, proceeding, canceled, scheduled, rejected, resumed, downloaded, download',
        ],
        [{ status: { execution: 'closed', result: {} } }, 'status.result.finished must be one of success, failure, none'],
        [{ status: { execution: 'closed', result: { finished: 'success' }, details: [1] } }, 'status.details must be an array of strings'],
      ] as const) {
        const answer = await ddi('POST', `${base(tenant, 'bad-1')}/deploymentBase/${other}/feedback`, token, body);
        assert.deepEqual([answer.status, answer.body], [400, { message }]);
      }
    });
  });

  describe('cancellation', () => {
    it('a paused rollout cancels the device’s started action first; acknowledged, it is pending, and offered again on resume', async () => {
      const { tenant, firmwareId } = await setUp();
      const token = await create(tenant, 'cancel-1');
      const id = await rollOut(tenant, firmwareId, ['cancel-1']);
      await ddi('GET', base(tenant, 'cancel-1'), token);
      await operator('POST', `/tenants/${tenant}/rollouts/${id}/pause`);
      const root = (await ddi('GET', base(tenant, 'cancel-1'), token)).body as { _links: Record<string, { href: string }> };
      assert.equal(root._links['cancelAction']?.href, `${app.urls.ddi}${base(tenant, 'cancel-1')}/cancelAction/${id}`);
      assert.equal(root._links['deploymentBase'], undefined, 'a cancellation takes priority');
      const cancel = await ddi('GET', `${base(tenant, 'cancel-1')}/cancelAction/${id}`, token);
      assert.deepEqual([cancel.status, cancel.body], [200, { id: String(id), cancelAction: { stopId: String(id) } }]);
      assert.equal(
        (await ddi('GET', `${base(tenant, 'cancel-1')}/deploymentBase/${id}`, token)).status,
        404,
        'while it is being cancelled',
      );
      const ack = await ddi('POST', `${base(tenant, 'cancel-1')}/cancelAction/${id}/feedback`, token, {
        id,
        time: '20261126T105554',
        status: { result: { finished: 'success' }, execution: 'closed', details: ['cancellation acknowledged.'] },
      });
      assert.deepEqual([ack.status, ack.text], [200, '']);
      assert.equal((await stateIn(tenant, 'cancel-1', id))?.state, 'pending');
      assert.deepEqual(Object.keys(((await ddi('GET', base(tenant, 'cancel-1'), token)).body as { _links: object })._links), [
        'configData',
      ]);
      await operator('POST', `/tenants/${tenant}/rollouts/${id}/resume`);
      const again = (await ddi('GET', base(tenant, 'cancel-1'), token)).body as { _links: Record<string, unknown> };
      assert.ok('deploymentBase' in again._links, 'offered again once resumed');
      assert.equal((await stateIn(tenant, 'cancel-1', id))?.state, 'offered');
    });

    it('a rejected cancellation leaves the device where it is', async () => {
      const { tenant, firmwareId } = await setUp();
      const token = await create(tenant, 'cancel-2');
      const id = await rollOut(tenant, firmwareId, ['cancel-2']);
      await ddi('GET', base(tenant, 'cancel-2'), token);
      await operator('POST', `/tenants/${tenant}/rollouts/${id}/cancel`);
      const reject = await ddi('POST', `${base(tenant, 'cancel-2')}/cancelAction/${id}/feedback`, token, feedback('rejected', 'none'));
      assert.equal(reject.status, 200);
      assert.equal((await stateIn(tenant, 'cancel-2', id))?.state, 'offered');
      const rollout = (await operator('GET', `/tenants/${tenant}/rollouts/${id}`)) as unknown as RolloutBody;
      assert.equal(rollout.status, 'cancelled');
    });
  });

  describe('artifacts', () => {
    it('lists and serves the artifact with Range and its MD5SUM, only the tenant’s firmware of the device’s type', async () => {
      const { tenant, firmwareId, bytes } = await setUp();
      const token = await create(tenant, 'art-1');
      const other = await setUp();
      const list = await ddi('GET', `${base(tenant, 'art-1')}/softwaremodules/${firmwareId}/artifacts`, token);
      assert.equal(list.status, 200);
      assert.equal((list.body as { filename: string }[])[0].filename, 'fw-2.0.0.swu');
      const file = `${base(tenant, 'art-1')}/softwaremodules/${firmwareId}/artifacts/fw-2.0.0.swu`;
      const part = await ddi('GET', file, token, undefined, { range: 'bytes=10-19' });
      assert.deepEqual(
        [part.status, part.headers.get('content-range'), part.bytes.equals(bytes.subarray(10, 20))],
        [206, `bytes 10-19/${bytes.length}`, true],
      );
      const md5sum = await ddi('GET', `${file}.MD5SUM`, token);
      assert.deepEqual([md5sum.status, md5sum.text], [200, `${createHash('md5').update(bytes).digest('hex')}  fw-2.0.0.swu`]);
      for (const path of [
        `${base(tenant, 'art-1')}/softwaremodules/${firmwareId}/artifacts/other.swu`,
        `${base(tenant, 'art-1')}/softwaremodules/${other.firmwareId}/artifacts/fw-2.0.0.swu`,
        `${base(tenant, 'art-1')}/softwaremodules/2147483647/artifacts`,
      ]) {
        assert.deepEqual([(await ddi('GET', path, token)).status], [404], path);
      }
      const typed = await create(tenant, 'art-other-type', 'another-board');
      assert.equal((await ddi('GET', `${base(tenant, 'art-other-type')}/softwaremodules/${firmwareId}/artifacts`, typed)).status, 404);
    });
  });

  describe('hostile bodies and the longest controller ids (docs/decisions.md §3, §11)', () => {
    /** A device `installed` in a started rollout: polled, downloaded, and reported installing. */
    const installed = async (controllerId: string) => {
      const { tenant, firmwareId } = await setUp();
      const token = await create(tenant, controllerId);
      const id = await rollOut(tenant, firmwareId, [controllerId]);
      assert.equal((await ddi('GET', base(tenant, controllerId), token)).status, 200);
      const artifact = await ddi('GET', `${base(tenant, controllerId)}/softwaremodules/${firmwareId}/artifacts/fw-2.0.0.swu`, token);
      assert.equal(artifact.status, 200);
      const feedbackPath = `${base(tenant, controllerId)}/deploymentBase/${id}/feedback`;
      assert.equal((await ddi('POST', feedbackPath, token, feedback('proceeding', 'none'))).status, 200);
      assert.equal((await stateIn(tenant, controllerId, id))?.state, 'installed');
      return { tenant, token, id, feedbackPath };
    };

    it('refuses JSON nested past the limit on feedback, cancel feedback and configData with 400, and keeps serving', async () => {
      const { tenant, token, id, feedbackPath } = await installed('deep-1');
      const deep = (depth: number) => `{"status":${'['.repeat(depth)}${']'.repeat(depth)}}`;
      for (const path of [feedbackPath, `${base(tenant, 'deep-1')}/cancelAction/${id}/feedback`, `${base(tenant, 'deep-1')}/configData`]) {
        for (const depth of [JSON_MAX_DEPTH, 5000]) {
          const answer = await ddi(path.endsWith('configData') ? 'PUT' : 'POST', path, token, deep(depth));
          assert.deepEqual([answer.status, answer.body], [400, { message: JsonTextMessages.tooDeep }], `${path} ${depth}`);
        }
      }
      assert.equal((await ddi('GET', base(tenant, 'deep-1'), token)).status, 200, 'the server still serves');
      assert.equal((await stateIn(tenant, 'deep-1', id))?.state, 'installed');
    });

    it('never reads a refused feedback by pattern: a __proto__ key or JSON broken beyond repair is 400 and confirms nothing', async () => {
      const { tenant, token, id, feedbackPath } = await installed('proto-1');
      const closedSuccess = '{"execution": "closed", "result": {"finished": "success"}}';
      for (const [body, message] of [
        [`{"status": {"__proto__": ${closedSuccess}}}`, JsonTextMessages.prototypeKey],
        [`{"__proto__": {"status": ${closedSuccess}}}`, JsonTextMessages.prototypeKey],
        [`{"status": {"constructor": {"prototype": ${closedSuccess}}}}`, JsonTextMessages.prototypeKey],
        [
          '{ "status": { "result": { "finished": "success" }, "execution": "closed", "details": [ "say "done"" ] } }',
          'Body is not valid JSON',
        ],
        ['{ "status": { "result": { "finished": "success" }, "execution": "closed" ', 'Body is not valid JSON'],
      ]) {
        const answer = await ddi('POST', feedbackPath, token, body);
        assert.deepEqual([answer.status, answer.body], [400, { message }], body);
      }
      assert.equal((await stateIn(tenant, 'proto-1', id))?.state, 'installed', 'not confirmed');
      assert.notEqual((await operator('GET', `/tenants/${tenant}/devices/proto-1`)).firmware_version, '2.0.0');
      // SWUpdate's raw line feeds are still repaired, and its closing feedback confirms.
      const swupdate = '{ "status": { "result": { "finished": "success" }, "execution": "closed", "details": [ "Update\nInstalled." ] } }';
      assert.equal((await ddi('POST', feedbackPath, token, swupdate)).status, 200);
      assert.equal((await stateIn(tenant, 'proto-1', id))?.state, 'confirmed');
    });

    it('refuses a lone surrogate in a feedback or configData with 400 naming the field', async () => {
      const { tenant, token, id, feedbackPath } = await installed('surrogate-1');
      const answers = [
        [await ddi('POST', feedbackPath, token, feedback('closed', 'failure', ['\ud800'])), 'status.details'],
        [
          await ddi(
            'POST',
            feedbackPath,
            token,
            '{"status":{"execution":"closed","result":{"finished":"failure"},"details":["x\\udc00"]}}',
          ),
          'status.details',
        ],
        [await ddi('PUT', `${base(tenant, 'surrogate-1')}/configData`, token, { data: { serial: '\udbff' } }), 'data.serial'],
        [await ddi('PUT', `${base(tenant, 'surrogate-1')}/configData`, token, '{"data":{"\\ud800":"x"}}'), 'data keys'],
      ] as const;
      for (const [answer, field] of answers) {
        assert.deepEqual(
          [answer.status, answer.body],
          [400, { message: `${field} must be valid Unicode text without NUL characters` }],
          field,
        );
      }
      assert.equal((await stateIn(tenant, 'surrogate-1', id))?.state, 'installed');
    });

    it('serves controller ids of 1 to 256 characters on every route, created by an operator or a gateway poll; 257 is 400', async () => {
      const longest = `${'c'.repeat(250)}-@:~!$`;
      assert.equal(longest.length, 256);
      const { tenant, token, id, feedbackPath } = await installed(longest);
      assert.equal((await operator('GET', `/tenants/${tenant}/devices/${encodeURIComponent(longest)}`)).mac, longest);
      const config = await ddi('PUT', `${base(tenant, longest)}/configData`, token, { data: { serial: 'SN-256' } });
      assert.deepEqual([config.status, config.text], [200, '']);
      assert.equal((await ddi('GET', `${base(tenant, longest)}/deploymentBase/${id}`, token)).status, 200);
      assert.equal((await ddi('POST', feedbackPath, token, feedback('closed', 'success'))).status, 200);
      assert.equal((await stateIn(tenant, longest, id))?.state, 'confirmed');
      assert.equal((await ddi('GET', `${base(tenant, longest)}/installedBase/${id}`, token)).status, 200);

      const { tenant: other, gateway } = await setUp();
      const polled = `${'g'.repeat(255)}1`;
      const first = await ddi('GET', base(other, polled), `GatewayToken ${gateway}`);
      assert.equal(first.status, 200, first.text);
      assert.equal((await operator('GET', `/tenants/${other}/devices/${polled}`)).protocol, 'ddi');
      const shortest = await ddi('GET', base(other, 'x'), `GatewayToken ${gateway}`);
      assert.equal(shortest.status, 200);

      const tooLong = 'c'.repeat(257);
      for (const path of [base(tenant, tooLong), `${base(tenant, tooLong)}/deploymentBase/${id}`, `${base(tenant, tooLong)}/configData`]) {
        const answer = await ddi(
          path.endsWith('configData') ? 'PUT' : 'GET',
          path,
          token,
          path.endsWith('configData') ? { data: { a: 'b' } } : undefined,
        );
        assert.equal(answer.status, 400, `${path.slice(-40)}: ${answer.text}`);
        assert.match((answer.body as { message: string }).message, /^controllerId must be 1 to 256/);
      }
      const created = await request('POST', `${app.urls.operator}/tenants/${tenant}/devices`, {
        bearer,
        body: { controller_id: tooLong, device_type: 'board' },
      });
      assert.equal(created.status, 400, created.text);
      assert.match((created.body as { message: string }).message, /^controller_id must be 1 to 256/);
    });
  });
});
