import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request, startTestApp, TEST_ENGINE, type Answer, type TestApp } from '#test/support/harness.js';
import { authBody, authenticate, chunkedRequest, menderSignature, menderToken, type MenderIdentity } from '#test/support/mender-api.js';
import { buildArtifact, deviceKeyPair, type BuiltArtifact, type DeviceKeyType } from '#test/support/mender-client.js';
import { runCli } from '#test/support/operator.js';
import type { DeviceRolloutBody } from '#test/support/rollouts.js';
import { JsonTextMessages } from '#src/platform/common/json-text.js';
import { PRIVATE_KEY_SENT } from '#src/domain/identity/device-public-key.js';
import { INVALID_ID_DATA } from '#src/domain/identity/identity-data.js';

const DEVICES = '/api/devices';
const NEXT_V2 = `${DEVICES}/v2/deployments/device/deployments/next`;
const NEXT_V1 = `${DEVICES}/v1/deployments/device/deployments/next`;
const INVENTORY = `${DEVICES}/v1/inventory/device/attributes`;
const deployment = (id: number | string) => `${DEVICES}/v1/deployments/device/deployments/${id}`;

/**
 * The Mender component over plain HTTP (docs/decisions.md §13), request by request as the Mender
 * client 3.4 sends them (test/support/mender-api.ts): exact status codes, signatures of every key
 * type over the exact bytes, chunked bodies, the device states a status report means, the signed
 * download link, tenancy and bad input. The real client's whole flows are in mender-client.e2e.spec.ts.
 */
describe(`the Mender device API over HTTP, on ${TEST_ENGINE}`, () => {
  let app: TestApp;
  let bearer: string;
  let work: string;
  const tenant = `mender-api-${Date.now()}`;
  const other = `mender-other-${Date.now()}`;
  const deviceType = 'mender-api-board';
  let tenantToken: string;
  let otherToken: string;
  let macCounter = 0;
  const nextMac = () => `02:4E:00:00:00:${(++macCounter).toString(16).padStart(2, '0').toUpperCase()}`;

  const operator = (method: string, path: string, body?: unknown): Promise<Answer> =>
    request(method, `${app.urls.operator}${path}`, { bearer, body });
  const ok = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const answer = await operator(method, path, body);
    assert.ok(answer.status === 200 || answer.status === 201, `${method} ${path}: ${answer.status} ${answer.text}`);
    return answer.body as Record<string, unknown>;
  };
  const device = (method: string, path: string, token: string, body?: unknown): Promise<Answer> =>
    request(method, `${app.urls.mender}${path}`, { bearer: token, body });

  /** A new device identity of `tenant`, preauthorized unless told; with its token when accepted. */
  const identity = async (
    type: DeviceKeyType = 'ec',
    options: { preauthorize?: boolean; token?: string } = {},
  ): Promise<MenderIdentity & { mac: string }> => {
    const mac = nextMac();
    const key = deviceKeyPair(type);
    if (options.preauthorize !== false) await ok('POST', `/tenants/${tenant}/device-auth-sets`, { mac, public_key: key.publicKey });
    return { mac, idData: { mac, serial: `SN-${mac}` }, key, tenantToken: options.token ?? tenantToken };
  };

  const publish = async (artifact: BuiltArtifact, tenantName = tenant): Promise<number> => {
    const answer = await request('POST', `${app.urls.operator}/tenants/${tenantName}/firmware/mender`, {
      bearer,
      rawBody: artifact.bytes,
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(answer.status, 201, answer.text);
    return (answer.body as { id: number }).id;
  };

  const rollOut = async (firmwareId: number, members: string[], extra: Record<string, unknown> = {}): Promise<number> => {
    const name = `group-${members.join('-')}-${firmwareId}`;
    await ok('POST', `/tenants/${tenant}/groups`, { name, macs: members });
    const created = await ok('POST', `/tenants/${tenant}/rollouts`, {
      name,
      firmware_id: firmwareId,
      group: name,
      start_date: '2020-01-01 00:00:00',
      ...extra,
    });
    await ok('POST', `/tenants/${tenant}/rollouts/${String(created.id)}/start`);
    return created.id as number;
  };

  const stateIn = async (mac: string, rolloutId: number): Promise<(DeviceRolloutBody & { deployment_log: unknown }) | undefined> =>
    (
      (await ok('GET', `/tenants/${tenant}/devices/${mac}/rollouts`)) as unknown as (DeviceRolloutBody & { deployment_log: unknown })[]
    ).find((row) => row.rollout_id === rolloutId);

  /** An accepted device with a rollout of a fresh artifact `name` started for it: its token and the rollout. */
  const deviceWithRollout = async (name: string, extra: Record<string, unknown> = {}) => {
    const id = await identity();
    const token = await menderToken(app.urls.mender, id);
    const artifact = buildArtifact(work, { name, deviceTypes: [deviceType] });
    const rolloutId = await rollOut(await publish(artifact), [id.mac], extra);
    return { ...id, token, artifact, rolloutId };
  };

  before(async () => {
    app = await startTestApp();
    bearer = await app.createOperatorToken('mender-api-spec');
    work = mkdtempSync(join(tmpdir(), 'firmledger-mender-api-'));
    await ok('POST', '/tenants', { name: tenant });
    await ok('POST', '/tenants', { name: other });
    tenantToken = (await ok('POST', `/tenants/${tenant}/device-keys`, { device_type: deviceType })).key as string;
    otherToken = (await ok('POST', `/tenants/${other}/device-keys`, { device_type: deviceType })).key as string;
  });
  after(async () => {
    await app.close();
    rmSync(work, { recursive: true, force: true });
  });

  describe('authentication', () => {
    for (const type of ['rsa', 'ec', 'ed25519'] as const) {
      it(`admits a preauthorized ${type} key signing the exact request bytes: 200, the raw token, no line break`, async () => {
        const id = await identity(type);
        const answer = await authenticate(app.urls.mender, id);
        assert.equal(answer.status, 200, answer.text);
        assert.match(answer.headers.get('content-type') ?? '', /^application\/jwt/);
        assert.match(answer.text, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'a JWT, nothing around it');
        assert.equal((await device('PUT', INVENTORY, answer.text, [{ name: 'kernel', value: '6.1' }])).status, 200, 'the token works');
      });
    }

    it('refuses a signature over other bytes than those sent (the same JSON without its line break), none, or by another key', async () => {
      const id = await identity('rsa');
      const body = authBody(id);
      const trimmed = body.subarray(0, body.length - 1);
      const refused = [
        await authenticate(app.urls.mender, id, { body, signature: menderSignature(id.key.privateKey, trimmed) }),
        await authenticate(app.urls.mender, id, { signature: null }),
        await authenticate(app.urls.mender, id, { signature: menderSignature(deviceKeyPair('rsa').privateKey, body) }),
        await authenticate(app.urls.mender, id, { signature: 'not base64 at all!' }),
      ];
      for (const answer of refused) {
        assert.equal(answer.status, 401, answer.text);
        assert.match((answer.body as { message: string }).message, /^Authentication refused/);
      }
      assert.equal((await authenticate(app.urls.mender, id)).status, 200, 'the same device, signing its bytes, is admitted');
    });

    it('needs a device key of a tenant as tenant token: none, an unknown or a revoked one is refused', async () => {
      const id = await identity('ec');
      assert.equal((await authenticate(app.urls.mender, { ...id, tenantToken: '' })).status, 401);
      assert.equal((await authenticate(app.urls.mender, { ...id, tenantToken: 'no-such-key' })).status, 401);
      const spare = await ok('POST', `/tenants/${tenant}/device-keys`, { device_type: deviceType });
      await ok('POST', `/tenants/${tenant}/device-keys/${String(spare.id)}/revoke`);
      assert.equal((await authenticate(app.urls.mender, { ...id, tenantToken: spare.key as string })).status, 401);
    });

    it('an unknown device is pending until accepted; a rejected or decommissioned one is refused, and its token stops at once', async () => {
      const id = await identity('ed25519', { preauthorize: false });
      assert.equal((await authenticate(app.urls.mender, id)).status, 401, 'pending');
      const sets = (await ok('GET', `/tenants/${tenant}/device-auth-sets?status=pending`)).items as Record<string, unknown>[];
      const pending = sets.find((s) => s['identifier'] === id.mac)!;
      const fingerprint = createHash('sha256')
        .update(createPublicKey(id.key.publicKey).export({ type: 'spki', format: 'der' }))
        .digest('hex');
      assert.deepEqual(
        [pending['status'], pending['key_type'], pending['fingerprint'], pending['id_data'], pending['device_type']],
        ['pending', 'ed25519', fingerprint, id.idData, deviceType],
      );
      assert.equal((await authenticate(app.urls.mender, id)).status, 401, 'still pending: no second auth set');
      assert.equal(
        ((await ok('GET', `/tenants/${tenant}/device-auth-sets?status=pending`)).items as unknown[]).filter(
          (s) => (s as { identifier: string }).identifier === id.mac,
        ).length,
        1,
      );

      await ok('POST', `/tenants/${tenant}/device-auth-sets/${String(pending['id'])}/accept`);
      const token = await menderToken(app.urls.mender, id);
      assert.equal((await device('PUT', INVENTORY, token, [])).status, 200);
      const shown = await ok('GET', `/tenants/${tenant}/devices/${id.mac}`);
      assert.deepEqual([shown['protocol'], shown['device_type']], ['mender', deviceType], 'a Mender device of its key’s type');

      await ok('POST', `/tenants/${tenant}/device-auth-sets/${String(pending['id'])}/reject`);
      assert.equal((await device('PUT', INVENTORY, token, [])).status, 401, 'its token stopped');
      assert.equal((await authenticate(app.urls.mender, id)).status, 401, 'rejected');

      await ok('POST', `/tenants/${tenant}/device-auth-sets/${String(pending['id'])}/accept`);
      const again = await menderToken(app.urls.mender, id);
      const decommissioned = (await ok('POST', `/tenants/${tenant}/devices/${id.mac}/decommission`)) as unknown as { status: string }[];
      assert.deepEqual(
        decommissioned.map((s) => s.status),
        ['decommissioned'],
      );
      assert.equal((await device('PUT', INVENTORY, again, [])).status, 401);
      assert.equal((await authenticate(app.urls.mender, id)).status, 401, 'decommissioned');
    });

    it('a device key that accepts new devices admits one at once; another key for an accepted identity waits', async () => {
      const auto = (await ok('POST', `/tenants/${tenant}/device-keys`, { device_type: 'auto-board', auto_accept: true })) as {
        key: string;
        auto_accept: boolean;
      };
      assert.equal(auto.auto_accept, true);
      const id = await identity('ec', { preauthorize: false, token: auto.key });
      assert.equal((await authenticate(app.urls.mender, id)).status, 200);
      assert.equal((await ok('GET', `/tenants/${tenant}/devices/${id.mac}`))['device_type'], 'auto-board');
      const newKey = { ...id, key: deviceKeyPair('ec') };
      assert.equal((await authenticate(app.urls.mender, newKey)).status, 401, 'a second key of a known device is not taken over at once');
    });

    it('keeps tenants apart: a tenant token names its tenant, device tokens reach only their device', async () => {
      const mac = nextMac();
      const key = deviceKeyPair('ec');
      await ok('POST', `/tenants/${other}/device-auth-sets`, { mac, public_key: key.publicKey });
      const otherDevice: MenderIdentity = { idData: { mac }, key, tenantToken: otherToken };
      assert.equal((await authenticate(app.urls.mender, { ...otherDevice, tenantToken })).status, 401, 'not preauthorized in this tenant');
      const token = await menderToken(app.urls.mender, otherDevice);
      assert.equal((await operator('GET', `/tenants/${tenant}/devices/${mac}`)).status, 404);
      assert.equal((await operator('GET', `/tenants/${other}/devices/${mac}`)).status, 200);
      const mine = await deviceWithRollout('tenancy-1');
      assert.equal((await device('PUT', `${deployment(mine.rolloutId)}/status`, token, { status: 'downloading' })).status, 404);
      assert.equal((await request('GET', `${app.urls.vc}/api/device/`, { bearer: token })).status, 401, 'not an asvin device token');
      const asvin = await app.login(await app.createTenant());
      assert.equal((await device('PUT', INVENTORY, asvin, [])).status, 401, 'an asvin device token is no Mender token');
    });

    it('a tenant token is no hawkBit gateway token, and a gateway token never reaches a Mender device (docs/decisions.md §12)', async () => {
      const d = await deviceWithRollout('gateway-probe');
      await device('POST', NEXT_V2, d.token, { device_provides: { artifact_name: 'factory-image', device_type: deviceType } });
      assert.equal((await stateIn(d.mac, d.rolloutId))?.state, 'offered');
      const gateway = (await ok('POST', `/tenants/${tenant}/device-keys`, { device_type: deviceType, ddi_gateway: true })).key as string;
      const ddiRoot = `${app.urls.ddi}/${tenant}/controller/v1/${d.mac}`;
      const failure = {
        id: d.rolloutId,
        status: { execution: 'closed', result: { finished: 'failure' }, details: ['forged by a holder of the tenant token'] },
      };
      for (const [authorization, what] of [
        [`GatewayToken ${tenantToken}`, 'the Mender tenant token'],
        [`GatewayToken ${gateway}`, 'a gateway token of the tenant'],
      ]) {
        for (const answer of [
          await request('GET', ddiRoot, { headers: { authorization } }),
          await request('POST', `${ddiRoot}/deploymentBase/${d.rolloutId}/feedback`, { headers: { authorization }, body: failure }),
        ]) {
          assert.deepEqual([answer.status, answer.body], [401, { message: 'A valid TargetToken or GatewayToken is required' }], what);
        }
      }
      const state = await stateIn(d.mac, d.rolloutId);
      assert.deepEqual([state?.state, state?.failure_message], ['offered', null], 'the deployment is untouched');
      assert.equal((await ok('GET', `/tenants/${tenant}/devices/${d.mac}`))['protocol'], 'mender');
      const next = await device('POST', NEXT_V2, d.token, { device_provides: { artifact_name: 'factory-image', device_type: deviceType } });
      assert.equal(next.status, 200, 'the device is still offered its deployment');
    });

    it('answers 400 to a body that is not an authentication request, and to an identity or key that is not one', async () => {
      const id = await identity('ec');
      const send = (body: unknown) => authenticate(app.urls.mender, id, { body: Buffer.from(JSON.stringify(body)) });
      const cases: [unknown, RegExp][] = [
        [{ id_data: 1, pubkey: id.key.publicKey, tenant_token: tenantToken }, /^Body must be/],
        [{ id_data: '{"mac":', pubkey: id.key.publicKey, tenant_token: tenantToken }, /^id_data must be/],
        [{ id_data: '{}', pubkey: id.key.publicKey, tenant_token: tenantToken }, /^id_data must be/],
        [{ id_data: '{"mac":{"nested":1}}', pubkey: id.key.publicKey, tenant_token: tenantToken }, /^id_data must be/],
        [{ id_data: '{"mac":"x"}', pubkey: 'not a key', tenant_token: tenantToken }, /^pubkey must be/],
        [
          {
            id_data: '{"mac":"x"}',
            pubkey: generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }),
            tenant_token: tenantToken,
          },
          /^pubkey must be/,
        ],
        [[], /^Body must be/],
      ];
      for (const [body, message] of cases) {
        const answer = await send(body);
        assert.equal(answer.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${answer.text}`);
        assert.match((answer.body as { message: string }).message, message);
      }
      const notJson = await authenticate(app.urls.mender, id, { body: Buffer.from('{"id_data"') });
      assert.deepEqual([notJson.status, notJson.body], [400, { message: 'Body is not valid JSON' }]);
    });
  });

  describe('hostile bodies (docs/decisions.md §3, §13)', () => {
    it('refuses JSON nested past the limit on authentication, inventory, next, status and log with 400, and keeps serving', async () => {
      const d = await deviceWithRollout('release-deep');
      const deep = (member: string) => `{"${member}":${'['.repeat(5000)}${']'.repeat(5000)}}`;
      const answers = [
        await authenticate(app.urls.mender, d, { body: Buffer.from(deep('id_data')) }),
        await chunkedRequest('PUT', `${app.urls.mender}${INVENTORY}`, d.token, `[${'['.repeat(5000)}${']'.repeat(5000)}]`, 4096),
        await chunkedRequest(
          'PATCH',
          `${app.urls.mender}${INVENTORY}`,
          d.token,
          `[{"name":"a","value":${'['.repeat(100)}${']'.repeat(100)}}]`,
        ),
        await chunkedRequest('POST', `${app.urls.mender}${NEXT_V2}`, d.token, deep('device_provides'), 4096),
        await chunkedRequest('PUT', `${app.urls.mender}${deployment(d.rolloutId)}/status`, d.token, deep('status'), 4096),
        await chunkedRequest('PUT', `${app.urls.mender}${deployment(d.rolloutId)}/log`, d.token, deep('messages'), 4096),
      ];
      for (const [i, answer] of answers.entries()) {
        const body = 'body' in answer ? answer.body : (JSON.parse(answer.text) as unknown);
        assert.deepEqual([answer.status, body], [400, { message: JsonTextMessages.tooDeep }], `request ${i}`);
      }
      assert.equal((await device('PUT', INVENTORY, d.token, [{ name: 'kernel', value: '6.1' }])).status, 200, 'the server still serves');
      assert.equal((await authenticate(app.urls.mender, d)).status, 200);
    });

    it('refuses a lone surrogate in id_data, escaped in the identity or in the body, and a __proto__ key, with 400', async () => {
      const id = await identity('ec');
      const send = (idData: string) =>
        authenticate(app.urls.mender, id, {
          body: Buffer.from(`${JSON.stringify({ id_data: idData, tenant_token: tenantToken, pubkey: id.key.publicKey })}\n`),
        });
      for (const idData of ['{"mac":"\\ud800"}', '{"serial":["a","\\udc00"]}', '{"\\udbff":"x"}', '{"__proto__":{"mac":"x"}}']) {
        const answer = await send(idData);
        assert.deepEqual([answer.status, answer.body], [400, { message: INVALID_ID_DATA }], idData);
      }
      const outer = await send('{"mac":"\ud800"}');
      assert.deepEqual([outer.status, outer.body], [400, { message: 'id_data must be valid Unicode text without NUL characters' }]);
      const inventory = await device('PATCH', INVENTORY, await menderToken(app.urls.mender, await identity()), [
        { name: 'x', value: '\udfff' },
      ]);
      assert.equal(inventory.status, 400, inventory.text);
      const token = await menderToken(app.urls.mender, await identity());
      const proto = await chunkedRequest('PATCH', `${app.urls.mender}${INVENTORY}`, token, '{"__proto__":[{"name":"a","value":"b"}]}');
      assert.deepEqual([proto.status, JSON.parse(proto.text) as unknown], [400, { message: JsonTextMessages.prototypeKey }]);
    });

    it('refuses a private key sent as pubkey with 400, signed or not, and keeps nothing of it', async () => {
      for (const type of ['rsa', 'ec', 'ed25519'] as const) {
        const key = deviceKeyPair(type);
        const leaked = { mac: nextMac(), idData: {}, key: { ...key, publicKey: key.privateKey }, tenantToken };
        leaked.idData = { mac: leaked.mac };
        const answer = await authenticate(app.urls.mender, leaked);
        assert.deepEqual([answer.status, answer.body], [400, { message: PRIVATE_KEY_SENT }], type);
        const sets = (await ok('GET', `/tenants/${tenant}/device-auth-sets`)) as unknown as { items?: { identifier: string }[] };
        assert.ok(!JSON.stringify(sets).includes(leaked.mac), `${type}: no auth set recorded`);
      }
      const preauthorized = await operator('POST', `/tenants/${tenant}/device-auth-sets`, {
        mac: nextMac(),
        public_key: deviceKeyPair('ec').privateKey,
      });
      assert.deepEqual([preauthorized.status, preauthorized.body], [400, { message: PRIVATE_KEY_SENT.replace(/^pubkey/, 'public_key') }]);
    });

    it('keeps at most 100 inventory attributes, dropping the rest rather than refusing: PUT the first by name, PATCH the device’s own first', async () => {
      const id = await identity();
      const token = await menderToken(app.urls.mender, id);
      const named = (prefix: string, count: number) =>
        Array.from({ length: count }, (_, i) => ({ name: `${prefix}${String(i).padStart(3, '0')}`, value: `v${i}` }));
      const shown = async () => (await ok('GET', `/tenants/${tenant}/devices/${id.mac}`))['attributes'] as Record<string, string>;

      const put = await device('PUT', INVENTORY, token, [...named('b', 120), { name: 'artifact_name', value: 'release-big' }]);
      assert.deepEqual([put.status, put.text], [200, '']);
      let kept = await shown();
      assert.equal(Object.keys(kept).length, 100);
      assert.equal(kept['artifact_name'], 'release-big', 'the first 100 by name');
      assert.equal(kept['b098'], 'v98');
      assert.equal(kept['b099'], undefined);
      assert.equal((await ok('GET', `/tenants/${tenant}/devices/${id.mac}`))['firmware_version'], 'release-big');

      const patch = await device('PATCH', INVENTORY, token, [...named('a', 5), { name: 'b000', value: 'changed' }]);
      assert.deepEqual([patch.status, patch.text], [200, '']);
      kept = await shown();
      assert.equal(Object.keys(kept).length, 100, 'still 100');
      assert.equal(kept['b000'], 'changed', 'an attribute it keeps is changed');
      assert.equal(kept['a000'], undefined, 'no room for new ones');
      assert.equal(kept['b098'], 'v98', 'the ones it had stay');

      const replaced = await device('PUT', INVENTORY, token, named('c', 3));
      assert.equal(replaced.status, 200);
      await device('PATCH', INVENTORY, token, named('a', 150));
      kept = await shown();
      assert.equal(Object.keys(kept).length, 100);
      assert.deepEqual([kept['c000'], kept['c002'], kept['a096'], kept['a097']], ['v0', 'v2', 'v96', undefined]);
    });
  });

  describe('inventory, next, status and log', () => {
    it('takes the inventory chunked: PUT replaces, PATCH merges, answered 200; artifact_name is the running version', async () => {
      const id = await identity();
      const token = await menderToken(app.urls.mender, id);
      const attributes = [
        { name: 'artifact_name', value: 'release-0' },
        { name: 'device_type', value: deviceType },
        { name: 'ipv4_eth0', value: ['10.0.0.2/24', '10.0.0.3/24'] },
        { name: 'cpu_count', value: 4 },
      ];
      const put = await chunkedRequest('PUT', `${app.urls.mender}${INVENTORY}`, token, `${JSON.stringify(attributes)}\n`);
      assert.deepEqual([put.status, put.text], [200, '']);
      const patch = await chunkedRequest(
        'PATCH',
        `${app.urls.mender}${INVENTORY}`,
        token,
        JSON.stringify([{ name: 'kernel', value: '6.1' }]),
      );
      assert.equal(patch.status, 200);
      const shown = await ok('GET', `/tenants/${tenant}/devices/${id.mac}`);
      assert.deepEqual(shown['attributes'], {
        artifact_name: 'release-0',
        cpu_count: '4',
        device_type: deviceType,
        ipv4_eth0: '["10.0.0.2/24","10.0.0.3/24"]',
        kernel: '6.1',
      });
      assert.equal(shown['firmware_version'], 'release-0');
      const replaced = await chunkedRequest(
        'PUT',
        `${app.urls.mender}${INVENTORY}`,
        token,
        JSON.stringify([{ name: 'kernel', value: '6.2' }]),
      );
      assert.equal(replaced.status, 200);
      assert.deepEqual((await ok('GET', `/tenants/${tenant}/devices/${id.mac}`))['attributes'], { kernel: '6.2' });
      for (const body of ['{}', '[{"name":""}]', '[{"name":"a","value":{"b":1}}]', '[1]']) {
        assert.equal((await chunkedRequest('PUT', `${app.urls.mender}${INVENTORY}`, token, body)).status, 400, body);
      }
    });

    it('answers next 204 when there is nothing, 200 with an absolute signed link otherwise, in the v2, v1 and GET forms', async () => {
      const id = await identity();
      const token = await menderToken(app.urls.mender, id);
      const provides = { artifact_name: 'factory-image', device_type: deviceType };
      const nothing = await chunkedRequest(
        'POST',
        `${app.urls.mender}${NEXT_V2}`,
        token,
        JSON.stringify({ device_provides: provides, update_control_map: true }),
      );
      assert.deepEqual([nothing.status, nothing.text], [204, '']);
      const artifact = buildArtifact(work, { name: 'release-next', deviceTypes: [deviceType, 'other-board'] });
      const upload = (query: string) =>
        request('POST', `${app.urls.operator}/tenants/${tenant}/firmware/mender${query}`, {
          bearer,
          rawBody: artifact.bytes,
          headers: { 'content-type': 'application/octet-stream' },
        });
      const unnamed = await upload('');
      assert.equal(unnamed.status, 400, 'an artifact for two device types needs one named');
      assert.match((unnamed.body as { message: string }).message, /it lists several: name one/);
      assert.equal((await upload('?device_type=third-board')).status, 400, 'one it is compatible with');
      const named = await upload(`?device_type=${deviceType}`);
      assert.equal(named.status, 201, named.text);
      const rolloutId = await rollOut((named.body as { id: number }).id, [id.mac]);

      const v2 = await chunkedRequest(
        'POST',
        `${app.urls.mender}${NEXT_V2}`,
        token,
        JSON.stringify({ device_provides: provides, update_control_map: true }),
      );
      assert.equal(v2.status, 200, v2.text);
      const offer = JSON.parse(v2.text) as {
        id: string;
        artifact: { artifact_name: string; source: { uri: string; expire: string }; device_types_compatible: string[] };
      };
      assert.equal(offer.id, String(rolloutId));
      assert.equal(offer.artifact.artifact_name, 'release-next');
      assert.deepEqual(offer.artifact.device_types_compatible, [deviceType, 'other-board']);
      assert.ok(offer.artifact.source.uri.startsWith(`${app.urls.mender}/api/devices/v1/deployments/download/`), offer.artifact.source.uri);
      assert.ok(Date.parse(offer.artifact.source.expire) > Date.now());
      assert.equal((await stateIn(id.mac, rolloutId))?.state, 'offered');
      assert.equal((await ok('GET', `/tenants/${tenant}/devices/${id.mac}`))['firmware_version'], 'factory-image', 'the version it runs');

      const v1 = await device('POST', NEXT_V1, token, provides);
      assert.equal(v1.status, 200);
      const get = await device('GET', `${NEXT_V1}?artifact_name=factory-image&device_type=${deviceType}`, token);
      assert.equal((get.body as { id: string }).id, String(rolloutId));
      const latest = await device('GET', `${NEXT_V1}?artifact_name=release-next&device_type=${deviceType}`, token);
      assert.equal(latest.status, 204, 'never the version it runs');
      for (const body of [{}, { device_provides: {} }, { device_provides: { artifact_name: 'x'.repeat(65) } }]) {
        assert.equal((await device('POST', NEXT_V2, token, body)).status, 400, JSON.stringify(body));
      }
      assert.equal((await device('GET', NEXT_V1, token)).status, 400, 'no artifact_name');
    });

    it('answers 204 outside every maintenance window of the rollout, and the deployment inside one (docs/decisions.md §10.1)', async () => {
      /** `M H * * *` in Asia/Tokyo at the instant `at`. */
      const tokyoDaily = (at: number): string => {
        const parts = new Intl.DateTimeFormat('en-US', { timeZone: 'Asia/Tokyo', hour: 'numeric', minute: 'numeric', hourCycle: 'h23' });
        const part = (type: string) => Number(parts.formatToParts(new Date(at)).find((p) => p.type === type)!.value);
        return `${part('minute')} ${part('hour')} * * *`;
      };
      const window = (at: number) => [{ cron: tokyoDaily(at), duration_seconds: 3600, time_zone: 'Asia/Tokyo' }];
      const closed = await deviceWithRollout('release-closed-window', { windows: window(app.clock.now() + 2 * 3600_000) });
      const provides = { artifact_name: 'factory-image', device_type: deviceType };
      assert.equal((await device('POST', NEXT_V1, closed.token, provides)).status, 204);
      assert.equal((await stateIn(closed.mac, closed.rolloutId))?.state, 'pending');
      const open = await deviceWithRollout('release-open-window', { windows: window(app.clock.now() - 60_000) });
      const offer = await device('POST', NEXT_V1, open.token, provides);
      assert.equal(offer.status, 200, offer.text);
      assert.equal((offer.body as { id: string }).id, String(open.rolloutId));
    });

    it('maps status reports onto the device states, answers 204 (also to repeated reports), and keeps the log of a failure', async () => {
      const d = await deviceWithRollout('release-states');
      const put = (status: string) =>
        chunkedRequest('PUT', `${app.urls.mender}${deployment(d.rolloutId)}/status`, d.token, `${JSON.stringify({ status })}\n`);
      await device('POST', NEXT_V2, d.token, { device_provides: { artifact_name: 'factory-image', device_type: deviceType } });
      for (const [status, state] of [
        ['downloading', 'downloading'],
        ['downloading', 'downloading'],
        ['pause_before_installing', 'downloading'],
        ['installing', 'installed'],
        ['rebooting', 'installed'],
        ['installing', 'installed'],
        ['success', 'confirmed'],
        ['success', 'confirmed'],
      ]) {
        const answer = await put(status);
        assert.deepEqual([answer.status, answer.text], [204, ''], status);
        assert.equal((await stateIn(d.mac, d.rolloutId))?.state, state, `after ${status}`);
      }
      assert.equal((await ok('GET', `/tenants/${tenant}/devices/${d.mac}`))['firmware_version'], 'release-states');
      assert.equal((await put('finished')).status, 400);
      assert.equal((await device('PUT', `${deployment(9_999_999)}/status`, d.token, { status: 'success' })).status, 404);
      assert.equal((await device('PUT', `${deployment('abc')}/status`, d.token, { status: 'success' })).status, 404);

      const f = await deviceWithRollout('release-failing');
      await device('POST', NEXT_V2, f.token, { device_provides: { artifact_name: 'factory-image', device_type: deviceType } });
      assert.equal((await device('PUT', `${deployment(f.rolloutId)}/status`, f.token, { status: 'failure' })).status, 204);
      assert.equal((await stateIn(f.mac, f.rolloutId))?.failure_message, 'the Mender client reported failure');
      const lines = [
        { level: 'info', message: 'Running Mender client version: 3.4.0', timestamp: '2026-12-01T09:00:00Z' },
        {
          level: 'error',
          message: 'Artifact install failed: Payload: can not install Payload: x.txt: invalid checksum',
          timestamp: '2026-12-01T09:00:01Z',
        },
        ...Array.from({ length: 300 }, (_, i) => ({
          level: 'debug',
          message: `line ${i} ${'.'.repeat(80)}`,
          timestamp: '2026-12-01T09:00:02Z',
        })),
      ];
      const body = JSON.stringify({ messages: lines });
      assert.ok(body.length > 16 * 1024, 'a log over the 16 KiB of other device bodies');
      const log = await chunkedRequest('PUT', `${app.urls.mender}${deployment(f.rolloutId)}/log`, f.token, body, 4096);
      assert.deepEqual([log.status, log.text], [204, '']);
      const failed = await stateIn(f.mac, f.rolloutId);
      assert.equal(failed?.failure_message, 'Artifact install failed: Payload: can not install Payload: x.txt: invalid checksum');
      assert.equal((failed?.deployment_log as { messages: unknown[] }).messages.length, lines.length);
      const huge = JSON.stringify({ messages: [{ level: 'debug', message: 'x'.repeat(1024 * 1024), timestamp: '' }] });
      assert.equal((await chunkedRequest('PUT', `${app.urls.mender}${deployment(f.rolloutId)}/log`, f.token, huge, 65536)).status, 413);
      assert.equal((await device('PUT', `${deployment(f.rolloutId)}/log`, f.token, { messages: 'x' })).status, 400);
    });

    it('answers 409 to every status report once the rollout was cancelled before the device installed it; the device is pending again', async () => {
      const d = await deviceWithRollout('release-cancelled');
      await device('POST', NEXT_V2, d.token, { device_provides: { artifact_name: 'factory-image', device_type: deviceType } });
      assert.equal((await device('PUT', `${deployment(d.rolloutId)}/status`, d.token, { status: 'downloading' })).status, 204);
      await ok('POST', `/tenants/${tenant}/rollouts/${d.rolloutId}/cancel`);
      const aborted = await device('PUT', `${deployment(d.rolloutId)}/status`, d.token, { status: 'downloading' });
      assert.deepEqual(
        [aborted.status, aborted.body],
        [409, { message: `Deployment ${d.rolloutId} is aborted: its rollout is cancelled` }],
      );
      assert.equal((await device('PUT', `${deployment(d.rolloutId)}/status`, d.token, { status: 'failure' })).status, 409, 'and again');
      const row = await stateIn(d.mac, d.rolloutId);
      assert.equal(row?.state, 'pending');
      assert.match(row?.history.at(-1)?.message ?? '', /answered 409/);
      const next = await device('POST', NEXT_V2, d.token, { device_provides: { artifact_name: 'factory-image', device_type: deviceType } });
      assert.equal(next.status, 204);

      const installed = await deviceWithRollout('release-paused-installed');
      await device('POST', NEXT_V2, installed.token, { device_provides: { artifact_name: 'factory-image', device_type: deviceType } });
      for (const status of ['downloading', 'installing']) {
        assert.equal((await device('PUT', `${deployment(installed.rolloutId)}/status`, installed.token, { status })).status, 204);
      }
      await ok('POST', `/tenants/${tenant}/rollouts/${installed.rolloutId}/pause`);
      assert.equal(
        (await device('PUT', `${deployment(installed.rolloutId)}/status`, installed.token, { status: 'success' })).status,
        204,
        'a device that installed goes on to its commit',
      );
      assert.equal((await stateIn(installed.mac, installed.rolloutId))?.state, 'confirmed');
    });

    it('fails a device offered firmware that is not a Mender artifact, and answers nothing to install', async () => {
      const id = await identity();
      const token = await menderToken(app.urls.mender, id);
      const binary = await request('POST', `${app.urls.operator}/tenants/${tenant}/firmware?version=9.0.0&device_type=${deviceType}`, {
        bearer,
        rawBody: Buffer.from('an ESP32 image'),
        headers: { 'content-type': 'application/octet-stream' },
      });
      const rolloutId = await rollOut((binary.body as { id: number }).id, [id.mac]);
      const next = await device('POST', NEXT_V2, token, { device_provides: { artifact_name: 'factory-image', device_type: deviceType } });
      assert.equal(next.status, 204);
      const row = await stateIn(id.mac, rolloutId);
      assert.equal(row?.state, 'failed');
      assert.match(row?.failure_message ?? '', /is not a Mender artifact/);
    });
  });

  describe('the artifact download', () => {
    it('serves the link without a token: Content-Length, never compressed, Range 206; the device is then downloading', async () => {
      const d = await deviceWithRollout('release-download');
      const offer = (
        await device('POST', NEXT_V2, d.token, { device_provides: { artifact_name: 'factory-image', device_type: deviceType } })
      ).body as { artifact: { source: { uri: string } } };
      const uri = offer.artifact.source.uri;
      const whole = await request('GET', uri, { headers: { 'accept-encoding': 'gzip' } });
      assert.equal(whole.status, 200);
      assert.equal(whole.headers.get('content-length'), String(d.artifact.bytes.length));
      assert.equal(whole.headers.get('content-encoding'), null);
      assert.equal(whole.headers.get('transfer-encoding'), null);
      assert.ok(whole.bytes.equals(d.artifact.bytes));
      assert.equal((await stateIn(d.mac, d.rolloutId))?.state, 'downloading');
      const part = await request('GET', uri, { headers: { range: 'bytes=5000-' } });
      assert.equal(part.status, 206);
      assert.equal(part.headers.get('content-range'), `bytes 5000-${d.artifact.bytes.length - 1}/${d.artifact.bytes.length}`);
      assert.ok(part.bytes.equals(d.artifact.bytes.subarray(5000)));
    });

    it('refuses a link that is changed or expired with 403', async () => {
      const d = await deviceWithRollout('release-link');
      const offer = (
        await device('POST', NEXT_V2, d.token, { device_provides: { artifact_name: 'factory-image', device_type: deviceType } })
      ).body as { artifact: { source: { uri: string } } };
      const url = new URL(offer.artifact.source.uri);
      const changed = [
        url.href.replace(/signature=[^&]+/, 'signature=AAAA'),
        url.href.replace(/expires=(\d+)/, (_, e: string) => `expires=${Number(e) + 1}`),
        url.href.replace(/\/(\d+)\?/, (_, device: string) => `/${Number(device) + 1}?`),
        url.href.split('?')[0],
      ];
      for (const link of changed) {
        const answer = await request('GET', link);
        assert.deepEqual([answer.status, answer.body], [403, { message: 'Download link is not valid or has expired' }], link);
      }
      app.clock.advance(86_400 + 60);
      try {
        assert.equal((await request('GET', url.href)).status, 403, 'a day later');
      } finally {
        app.clock.advance(-(86_400 + 60));
      }
    });
  });

  describe('Mender artifacts as firmware', () => {
    it('refuses what is not a Mender artifact with a clear message, and keeps nothing of it', async () => {
      const firmware = async (bytes: Buffer) =>
        request('POST', `${app.urls.operator}/tenants/${tenant}/firmware/mender`, {
          bearer,
          rawBody: bytes,
          headers: { 'content-type': 'application/octet-stream' },
        });
      const before = ((await ok('GET', `/tenants/${tenant}/firmware?per_page=500`)).total as number) ?? 0;
      for (const [bytes, message] of [
        [Buffer.from('just some bytes, not a tar archive at all'.repeat(20)), /^Mender artifact refused: not a tar archive/],
        [Buffer.from([0x1f, 0x8b, 8, 0, ...Buffer.alloc(600)]), /gzip-compressed/],
      ] as const) {
        const answer = await firmware(bytes);
        assert.equal(answer.status, 400, answer.text);
        assert.match((answer.body as { message: string }).message, message);
      }
      assert.equal((await ok('GET', `/tenants/${tenant}/firmware?per_page=500`)).total, before, 'no firmware kept');
    });

    it('publishes signed artifacts, checks the signature once the tenant has a verification key, and records it (REST and CLI)', async () => {
      const signer = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
      const signing = signer.privateKey.export({ type: 'sec1', format: 'pem' }) as string;
      const verifyPem = signer.publicKey.export({ type: 'spki', format: 'pem' }) as string;
      const unsignedBefore = buildArtifact(work, { name: 'release-unsigned-before', deviceTypes: [deviceType] });
      const signed = buildArtifact(work, { name: 'release-signed', deviceTypes: [deviceType], signingKey: signing });
      const firmware = (id: number) => ok('GET', `/tenants/${tenant}/firmware/${id}`);
      const unsignedView = await firmware(await publish(unsignedBefore));
      assert.deepEqual(
        [unsignedView['version'], unsignedView['device_type'], (unsignedView['mender_artifact'] as Record<string, unknown>)['signed']],
        ['release-unsigned-before', deviceType, false],
      );

      const keyed = await ok('PUT', `/tenants/${tenant}/artifact-verify-key`, { public_key: verifyPem });
      const fingerprint = createHash('sha256')
        .update(signer.publicKey.export({ type: 'spki', format: 'der' }))
        .digest('hex');
      assert.equal(keyed['artifact_verify_key_fingerprint'], fingerprint);
      const signedView = (await firmware(await publish(signed)))['mender_artifact'] as Record<string, unknown>;
      assert.deepEqual(
        [signedView['signed'], signedView['verified_with'], signedView['artifact_name']],
        [true, fingerprint, 'release-signed'],
      );
      for (const [artifact, message] of [
        [
          buildArtifact(work, { name: 'release-unsigned', deviceTypes: [deviceType] }),
          /not signed, and the tenant requires signed artifacts/,
        ],
        [
          buildArtifact(work, {
            name: 'release-other-signer',
            deviceTypes: [deviceType],
            signingKey: generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({
              type: 'sec1',
              format: 'pem',
            }) as string,
          }),
          /signature does not verify/,
        ],
      ] as const) {
        const answer = await request('POST', `${app.urls.operator}/tenants/${tenant}/firmware/mender`, {
          bearer,
          rawBody: artifact.bytes,
          headers: { 'content-type': 'application/octet-stream' },
        });
        assert.equal(answer.status, 400, answer.text);
        assert.match((answer.body as { message: string }).message, message);
      }

      // The CLI publishes a .mender file the same way.
      const cliSigned = buildArtifact(work, { name: 'release-cli', deviceTypes: [deviceType], signingKey: signing });
      const published = await runCli(app, 'firmware', 'publish', cliSigned.file, '--tenant', tenant, '--json');
      assert.equal(published.code, 0, published.stderr);
      const view = JSON.parse(published.stdout) as { version: string; mender_artifact: { verified_with: string } };
      assert.deepEqual([view.version, view.mender_artifact.verified_with], ['release-cli', fingerprint]);
      const refused = await runCli(app, 'firmware', 'publish', unsignedBefore.file, '--tenant', tenant);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /Mender artifact refused: it is not signed/);
      assert.equal((await ok('DELETE', `/tenants/${tenant}/artifact-verify-key`))['artifact_verify_key_fingerprint'], null);
    });

    it('preauthorizes, lists, accepts and rejects devices with the CLI', async () => {
      const key = deviceKeyPair('rsa');
      const file = join(work, 'device.pub.pem');
      writeFileSync(file, key.publicKey);
      const mac = nextMac();
      const pre = await runCli(
        app,
        'device',
        'preauthorize',
        '--tenant',
        tenant,
        '--mac',
        mac.toLowerCase().replaceAll(':', '-'),
        '--public-key',
        file,
        '--json',
      );
      assert.equal(pre.code, 0, pre.stderr);
      assert.deepEqual(
        [
          (JSON.parse(pre.stdout) as { identifier: string; status: string }).identifier,
          (JSON.parse(pre.stdout) as { status: string }).status,
        ],
        [mac, 'preauthorized'],
      );
      assert.equal((await authenticate(app.urls.mender, { idData: { mac }, key, tenantToken })).status, 200);

      const pendingId: MenderIdentity = { idData: { serial: 'no-mac-1' }, key: deviceKeyPair('ec'), tenantToken };
      assert.equal((await authenticate(app.urls.mender, pendingId)).status, 401);
      const listed = await runCli(app, 'device', 'pending', '--tenant', tenant, '--json');
      const row = (JSON.parse(listed.stdout) as { identifier: string; id_data: unknown }[]).find((s) =>
        JSON.stringify(s.id_data).includes('no-mac-1'),
      );
      assert.match(row?.identifier ?? '', /^mender-[0-9a-f]{32}$/, 'a device without a mac is named by a digest of its identity');
      const accepted = await runCli(app, 'device', 'accept', row!.identifier, '--tenant', tenant);
      assert.equal(accepted.code, 0, accepted.stderr);
      assert.match(accepted.stdout, /: accepted$/m);
      assert.equal((await authenticate(app.urls.mender, pendingId)).status, 200);
      const rejected = await runCli(app, 'device', 'reject', row!.identifier, '--tenant', tenant);
      assert.equal(rejected.code, 1, 'no pending auth set left to name by identifier');
    });
  });

  it('answers under MENDER_URL’s path prefix only, and its download links keep the prefix', async () => {
    const prefixed = await startTestApp({}, { AUTH_URL: 'http://127.0.0.1:{port0}', MENDER_URL: 'http://127.0.0.1:{port0}/mender' });
    try {
      const operatorToken = await prefixed.createOperatorToken();
      const op = async (path: string, body?: unknown, raw?: Buffer) => {
        const answer = await request('POST', `${prefixed.urls.operator}${path}`, {
          bearer: operatorToken,
          ...(raw ? { rawBody: raw, headers: { 'content-type': 'application/octet-stream' } } : { body }),
        });
        assert.ok(answer.status < 300, `${path}: ${answer.status} ${answer.text}`);
        return answer.body as Record<string, unknown>;
      };
      await op('/tenants', { name: 'prefixed' });
      const key = (await op('/tenants/prefixed/device-keys', { device_type: deviceType, auto_accept: true })).key as string;
      const id: MenderIdentity = { idData: { mac: '02:4E:00:00:EE:01' }, key: deviceKeyPair('ec'), tenantToken: key };
      const root = prefixed.urls.mender.replace(/\/mender$/, '');
      assert.equal((await authenticate(root, id)).status, 404, 'not at the listener’s root');
      const token = await menderToken(prefixed.urls.mender, id);
      const artifact = buildArtifact(work, { name: 'release-prefixed', deviceTypes: [deviceType] });
      const firmware = await op('/tenants/prefixed/firmware/mender', undefined, artifact.bytes);
      await op('/tenants/prefixed/groups', { name: 'g', macs: ['02:4E:00:00:EE:01'] });
      const rollout = await op('/tenants/prefixed/rollouts', {
        name: 'r',
        firmware_id: firmware.id,
        group: 'g',
        start_date: '2020-01-01 00:00:00',
      });
      await op(`/tenants/prefixed/rollouts/${String(rollout.id)}/start`);
      const next = await request('POST', `${prefixed.urls.mender}${NEXT_V2}`, {
        bearer: token,
        body: { device_provides: { artifact_name: 'factory-image', device_type: deviceType } },
      });
      const uri = (next.body as { artifact: { source: { uri: string } } }).artifact.source.uri;
      assert.ok(uri.startsWith(`${prefixed.urls.mender}/api/devices/v1/deployments/download/`), uri);
      assert.ok((await request('GET', uri)).bytes.equals(artifact.bytes));
    } finally {
      await prefixed.close();
    }
  });

  it('throttles failed authentication like failed logins: over LOGIN_RATE_LIMIT, 429 with Retry-After; a valid request still passes', async () => {
    const strict = await startTestApp({ LOGIN_RATE_LIMIT: '3' });
    try {
      const operatorToken = await strict.createOperatorToken();
      const op = (method: string, path: string, body?: unknown) =>
        request(method, `${strict.urls.operator}${path}`, { bearer: operatorToken, body });
      await op('POST', '/tenants', { name: 'strict' });
      const key = ((await op('POST', '/tenants/strict/device-keys', { device_type: deviceType })).body as { key: string }).key;
      const good: MenderIdentity = { idData: { mac: '02:4E:00:00:FF:01' }, key: deviceKeyPair('ec'), tenantToken: key };
      await op('POST', '/tenants/strict/device-auth-sets', { mac: '02:4E:00:00:FF:01', public_key: good.key.publicKey });
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await authenticate(strict.urls.mender, good, { signature: null })).status);
      assert.deepEqual(statuses, [401, 401, 401, 429, 429]);
      const throttled = await authenticate(strict.urls.mender, good, { signature: null });
      assert.match(throttled.headers.get('retry-after') ?? '', /^\d+$/);
      assert.equal((await authenticate(strict.urls.mender, good)).status, 200, 'the valid request is not refused');
      const tokens: number[] = [];
      for (let i = 0; i < 5; i++)
        tokens.push((await request('PUT', `${strict.urls.mender}${INVENTORY}`, { bearer: 'forged', body: [] })).status);
      assert.deepEqual(tokens, [401, 401, 401, 429, 429]);
    } finally {
      await strict.close();
    }
  });
});
