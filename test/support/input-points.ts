import { request, type Answer, type TestApp, type TestTenant } from './harness.js';
import { menderToken } from './mender-api.js';
import { deviceKeyPair } from './mender-client.js';

/** Where a value enters a route. */
export type InputPlace = 'body' | 'query' | 'path' | 'header';

/**
 * One input of one route: a body field, a query parameter, a path parameter, or a request header
 * the route reads (the updaters' download headers, the console's session cookie).
 */
export interface InputPoint {
  /** The route as documented, e.g. `POST /tenants/{tenant}/rollouts`. */
  route: string;
  place: InputPlace;
  /** The field or parameter name, as the route's 400 texts name it. */
  field: string;
  /** Whether the value is an id (or an "id or name" reference): well-formed but unused ids are 404. */
  id?: boolean;
  /**
   * Sends the route's request with `value` in this input, everything else valid. A header value
   * no HTTP client can send (a NUL, a line break, text beyond Latin-1) makes fetch throw a TypeError.
   */
  send(value: unknown): Promise<Answer>;
}

/** What the points send requests as: a tenant with a device, a firmware, a group and a rollout. */
export interface InputFixture {
  app: TestApp;
  tenant: TestTenant;
  /** A second tenant, whose device keys the revoke route may revoke (the first one's token stays valid). */
  spare: TestTenant;
  deviceToken: string;
  /** The token of an accepted Mender device of {@link tenant} (its mac {@link menderMac}). */
  menderToken: string;
  menderMac: string;
  operatorToken: string;
  mac: string;
  firmwareId: number;
  cid: string;
  group: string;
  rolloutId: number;
  /** `Authorization` of the hawkBit DDI device `pump-7` of tenant `acme` (a member of `group`, so the rollout is its action). */
  ddiAuthorization: string;
}

/** Seeds an {@link InputFixture} in a started app. */
export async function createInputFixture(app: TestApp): Promise<InputFixture> {
  const tenant = await app.createTenant('acme');
  const spare = await app.createTenant('spare');
  const firmware = await app.publishFirmware(tenant, '1.1.0', Buffer.from('firmware 1.1.0'));
  const mac = 'AC:67:B2:01:02:03';
  const group = 'field-test';
  await app.createGroup(tenant, group, [mac]);
  const rollout = await app.createRollout(tenant, { firmwareId: firmware.id, group });
  const deviceToken = await app.login(tenant);
  const registered = await request('POST', `${app.urls.vc}/api/device/register`, {
    token: deviceToken,
    body: { mac, firmware_version: '1.0.0', name: 'pump-7' },
  });
  if (registered.status !== 200) throw new Error(`register failed: ${registered.text}`);
  const operatorToken = await app.createOperatorToken();
  const ddi = await request('POST', `${app.urls.operator}/tenants/acme/devices`, {
    bearer: operatorToken,
    body: { controller_id: 'pump-7', device_type: tenant.deviceType },
  });
  if (ddi.status !== 201) throw new Error(`DDI device creation failed: ${ddi.text}`);
  await request('POST', `${app.urls.operator}/tenants/acme/groups/${group}/members`, { bearer: operatorToken, body: { macs: ['pump-7'] } });
  const menderMac = '02:4D:4E:00:00:01';
  const menderKey = deviceKeyPair('ed25519');
  const preauthorized = await request('POST', `${app.urls.operator}/tenants/${tenant.name}/device-auth-sets`, {
    bearer: operatorToken,
    body: { mac: menderMac, public_key: menderKey.publicKey },
  });
  if (preauthorized.status !== 201) throw new Error(`preauthorize failed: ${preauthorized.text}`);
  return {
    app,
    tenant,
    spare,
    deviceToken,
    menderToken: await menderToken(app.urls.mender, { idData: { mac: menderMac }, key: menderKey, tenantToken: tenant.deviceKey }),
    menderMac,
    operatorToken,
    ddiAuthorization: `TargetToken ${(ddi.body as { target_token: string }).target_token}`,
    mac,
    firmwareId: firmware.id,
    cid: firmware.cid,
    group,
    rolloutId: rollout.id,
  };
}

/**
 * A value as URL text: percent-encoded UTF-8, and a lone surrogate (which has no UTF-8 form) as
 * the bytes WTF-8 gives it (`%ED%A0%80`), which is what a client sending such text would put on
 * the wire.
 */
export function urlText(value: unknown): string {
  const text = String(value);
  try {
    return encodeURIComponent(text);
  } catch {
    let encoded = '';
    for (const char of text) {
      const code = char.codePointAt(0) as number;
      encoded +=
        code >= 0xd800 && code <= 0xdfff
          ? [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('')
          : encodeURIComponent(char);
    }
    return encoded;
  }
}

/**
 * Every input of every route that takes one, each with a request that is valid but for it. A
 * list route's `page` and `per_page` are points of their own. Destructive requests (revoking a
 * key, rotating a customer key) go to the spare tenant, so the fixture keeps working.
 */
export function inputPoints(f: InputFixture): InputPoint[] {
  const { app, tenant } = f;
  const points: InputPoint[] = [];
  const device = (method: string, url: string) => (body: unknown) => request(method, url, { token: f.deviceToken, body });
  const operator = (method: string, url: string, body?: unknown) => request(method, url, { bearer: f.operatorToken, body });
  const op = app.urls.operator;

  // Body fields: each route's valid body with one field replaced by the value.
  const bodies: [string, string, (body: unknown) => Promise<Answer>, Record<string, unknown>, string[]?][] = [
    [
      'POST /auth/login',
      '',
      (body) => request('POST', `${app.urls.auth}/auth/login`, { body }),
      { device_key: tenant.deviceKey, timestamp: Math.floor(app.clock.now() / 1000), device_signature: 'ab'.repeat(32) },
    ],
    [
      'POST /api/device/register',
      '',
      device('POST', `${app.urls.vc}/api/device/register`),
      { mac: 'AC:67:B2:0F:0F:0F', firmware_version: '1.0.0', name: 'spare' },
    ],
    ['DELETE /api/device', '', device('DELETE', `${app.urls.vc}/api/device/`), { mac: 'AC:67:B2:0E:0E:0E' }],
    [
      'POST /api/device/next/rollout',
      '',
      device('POST', `${app.urls.vc}/api/device/next/rollout`),
      { mac: f.mac, firmware_version: '1.0.0' },
    ],
    [
      'POST /api/device/success/rollout',
      '',
      device('POST', `${app.urls.vc}/api/device/success/rollout`),
      { mac: f.mac, firmware_version: '1.0.0', rollout_id: String(f.rolloutId) },
      ['rollout_id'],
    ],
    ['POST /device/get', '', device('POST', `${app.urls.bc}/device/get`), { id: f.mac }, ['id']],
    ['POST /firmware/get', '', device('POST', `${app.urls.bc}/firmware/get`), { id: String(f.firmwareId) }, ['id']],
    ['POST /firmware/download', '', device('POST', `${app.urls.ipfs}/firmware/download`), { cid: f.cid }],
    ['POST /session', '', (body) => request('POST', `${op}/session`, { body }), { username: 'alice', password: 'not the password' }],
    ['POST /tenants', '', (body) => operator('POST', `${op}/tenants`, body), { name: 'tenant-x' }],
    [
      'POST /tenants/{tenant}/device-keys',
      '',
      (body) => operator('POST', `${op}/tenants/${f.spare.name}/device-keys`, body),
      { device_type: 'ESP32' },
    ],
    [
      'POST /tenants/{tenant}/groups',
      '',
      (body) => operator('POST', `${op}/tenants/acme/groups`, body),
      { name: 'group-x', macs: [f.mac] },
    ],
    [
      'POST /tenants/{tenant}/groups/{group}/members',
      '',
      (body) => operator('POST', `${op}/tenants/acme/groups/${f.group}/members`, body),
      { macs: [f.mac] },
    ],
    [
      'POST /tenants/{tenant}/groups/{group}/members/remove',
      '',
      (body) => operator('POST', `${op}/tenants/acme/groups/${f.group}/members/remove`, body),
      { macs: ['AC:67:B2:0D:0D:0D'] },
    ],
    [
      'POST /tenants/{tenant}/rollouts',
      '',
      (body) => operator('POST', `${op}/tenants/acme/rollouts`, body),
      { name: 'rollout-x', firmware_id: f.firmwareId, group: f.group, priority: 1, start_date: '2026-01-01 00:00:00', downgrade: false },
      ['firmware_id', 'group'],
    ],
  ];
  const controller = `${app.urls.ddi}/acme/controller/v1/pump-7`;
  const ddi = (method: string, url: string) => (body: unknown) =>
    request(method, url, { headers: { authorization: f.ddiAuthorization }, body });
  bodies.push(
    [
      'POST /{tenant}/controller/v1/{controllerId}/deploymentBase/{actionId}/feedback',
      '',
      ddi('POST', `${controller}/deploymentBase/${f.rolloutId}/feedback`),
      { status: { execution: 'scheduled', result: { finished: 'none' } } },
    ],
    [
      'POST /{tenant}/controller/v1/{controllerId}/cancelAction/{actionId}/feedback',
      '',
      ddi('POST', `${controller}/cancelAction/${f.rolloutId}/feedback`),
      { status: { execution: 'rejected', result: { finished: 'none' } } },
    ],
    [
      'PUT /{tenant}/controller/v1/{controllerId}/configData',
      '',
      ddi('PUT', `${controller}/configData`),
      { data: { serial: 'SN-1' }, mode: 'merge' },
    ],
  );
  for (const [route, , send, valid, ids = []] of bodies) {
    for (const field of Object.keys(valid)) {
      points.push({ route, place: 'body', field, id: ids.includes(field), send: (value) => send({ ...valid, [field]: value }) });
    }
  }

  // Path parameters: each route with one segment replaced by the value (URL-encoded).
  const get =
    (url: (value: string) => string, bearer = true) =>
    (value: unknown) =>
      bearer ? operator('GET', url(urlText(value))) : request('GET', url(urlText(value)), { token: f.deviceToken });
  const postTo = (url: (value: string) => string, body?: unknown) => (value: unknown) => operator('POST', url(urlText(value)), body);
  const paths: [string, string, (value: unknown) => Promise<Answer>, boolean?][] = [
    ['GET /api/device/{mac}', 'mac', get((v) => `${app.urls.vc}/api/device/${v}`, false)],
    ['GET /api/report/{type}', 'type', get((v) => `${app.urls.vc}/api/report/${v}`, false)],
    ['GET /firmware/{cid}', 'cid', get((v) => `${app.urls.ipfs}/firmware/${v}`, false)],
    ['GET /ipfs/{cid}', 'cid', get((v) => `${app.urls.ipfs}/ipfs/${v}`, false)],
    ['GET /device/{id}', 'id', get((v) => `${app.urls.bc}/device/${v}`, false)],
    ['GET /firmware/{id}', 'id', get((v) => `${app.urls.bc}/firmware/${v}`, false), true],
    ['GET /tenants/{tenant}', 'tenant', get((v) => `${op}/tenants/${v}`), true],
    ['POST /tenants/{tenant}/customer-key/rotate', 'tenant', postTo((v) => `${op}/tenants/${v}/customer-key/rotate`), true],
    ['GET /tenants/{tenant}/device-keys', 'tenant', get((v) => `${op}/tenants/${v}/device-keys`), true],
    ['POST /tenants/{tenant}/device-keys', 'tenant', postTo((v) => `${op}/tenants/${v}/device-keys`, { device_type: 'ESP8266' }), true],
    ['POST /tenants/{tenant}/device-keys/{id}/revoke', 'id', postTo((v) => `${op}/tenants/${f.spare.name}/device-keys/${v}/revoke`), true],
    ['GET /tenants/{tenant}/devices', 'tenant', get((v) => `${op}/tenants/${v}/devices`), true],
    ['GET /tenants/{tenant}/devices/{mac}', 'mac', get((v) => `${op}/tenants/acme/devices/${v}`)],
    ['GET /tenants/{tenant}/firmware', 'tenant', get((v) => `${op}/tenants/${v}/firmware`), true],
    ['GET /tenants/{tenant}/fleet', 'tenant', get((v) => `${op}/tenants/${v}/fleet`), true],
    ['GET /tenants/{tenant}/firmware/{id}', 'id', get((v) => `${op}/tenants/acme/firmware/${v}`), true],
    ['GET /tenants/{tenant}/groups', 'tenant', get((v) => `${op}/tenants/${v}/groups`), true],
    ['GET /tenants/{tenant}/groups/{group}', 'group', get((v) => `${op}/tenants/acme/groups/${v}`), true],
    [
      'POST /tenants/{tenant}/groups/{group}/members',
      'group',
      postTo((v) => `${op}/tenants/acme/groups/${v}/members`, { macs: [f.mac] }),
      true,
    ],
    [
      'POST /tenants/{tenant}/groups/{group}/members/remove',
      'group',
      postTo((v) => `${op}/tenants/acme/groups/${v}/members/remove`, { macs: ['AC:67:B2:0D:0D:0D'] }),
      true,
    ],
    ['GET /tenants/{tenant}/rollouts', 'tenant', get((v) => `${op}/tenants/${v}/rollouts`), true],
    ['GET /tenants/{tenant}/rollouts/{id}', 'id', get((v) => `${op}/tenants/acme/rollouts/${v}`), true],
    ...(['start', 'pause', 'resume', 'cancel'] as const).map((action): [string, string, (value: unknown) => Promise<Answer>, boolean] => [
      `POST /tenants/{tenant}/rollouts/{id}/${action}`,
      'id',
      postTo((v) => `${op}/tenants/acme/rollouts/${v}/${action}`),
      true,
    ]),
  ];
  const ddiGet = (url: (value: string) => string) => (value: unknown) =>
    request('GET', url(urlText(value)), { headers: { authorization: f.ddiAuthorization } });
  const ddiRoot = `${app.urls.ddi}/acme/controller/v1`;
  paths.push(
    ['GET /{tenant}/controller/v1/{controllerId}', 'tenant', ddiGet((v) => `${app.urls.ddi}/${v}/controller/v1/pump-7`)],
    ['GET /{tenant}/controller/v1/{controllerId}', 'controllerId', ddiGet((v) => `${ddiRoot}/${v}`)],
    [
      'GET /{tenant}/controller/v1/{controllerId}/deploymentBase/{actionId}',
      'actionId',
      ddiGet((v) => `${ddiRoot}/pump-7/deploymentBase/${v}`),
      true,
    ],
    [
      'GET /{tenant}/controller/v1/{controllerId}/cancelAction/{actionId}',
      'actionId',
      ddiGet((v) => `${ddiRoot}/pump-7/cancelAction/${v}`),
      true,
    ],
    [
      'GET /{tenant}/controller/v1/{controllerId}/installedBase/{actionId}',
      'actionId',
      ddiGet((v) => `${ddiRoot}/pump-7/installedBase/${v}`),
      true,
    ],
    [
      'GET /{tenant}/controller/v1/{controllerId}/softwaremodules/{softwareModuleId}/artifacts',
      'softwareModuleId',
      ddiGet((v) => `${ddiRoot}/pump-7/softwaremodules/${v}/artifacts`),
      true,
    ],
    [
      'GET /{tenant}/controller/v1/{controllerId}/softwaremodules/{softwareModuleId}/artifacts/{fileName}',
      'fileName',
      ddiGet((v) => `${ddiRoot}/pump-7/softwaremodules/${f.firmwareId}/artifacts/${v}`),
    ],
  );
  for (const [route, field, send, id] of paths) points.push({ route, place: 'path', field, id: id ?? false, send });

  // Query parameters: each list with one parameter set to the value.
  const query = (route: string, base: string, field: string, id = false, method = 'GET', body?: string) =>
    points.push({
      route,
      place: 'query',
      field,
      id,
      send: (value) =>
        method === 'GET'
          ? operator('GET', `${base}${base.includes('?') ? '&' : '?'}${field}=${urlText(value)}`)
          : request(method, `${base}${base.includes('?') ? '&' : '?'}${field}=${urlText(value)}`, {
              bearer: f.operatorToken,
              rawBody: body,
              headers: { 'content-type': 'application/octet-stream' },
            }),
    });
  const lists: [string, string, string[]][] = [
    ['GET /tenants', `${op}/tenants`, []],
    ['GET /tenants/{tenant}/device-keys', `${op}/tenants/acme/device-keys`, []],
    [
      'GET /tenants/{tenant}/devices',
      `${op}/tenants/acme/devices`,
      ['group', 'firmware_version', 'device_type', 'seen_since', 'not_seen_since', 'q'],
    ],
    ['GET /tenants/{tenant}/firmware', `${op}/tenants/acme/firmware`, []],
    ['GET /tenants/{tenant}/groups', `${op}/tenants/acme/groups`, []],
    ['GET /tenants/{tenant}/groups/{group}', `${op}/tenants/acme/groups/${f.group}`, []],
    ['GET /tenants/{tenant}/rollouts', `${op}/tenants/acme/rollouts`, ['status']],
    ['GET /ledger/entries', `${op}/ledger/entries`, ['tenant', 'order']],
  ];
  for (const [route, base, filters] of lists) {
    for (const field of ['page', 'per_page', ...filters]) query(route, base, field, field === 'group' || field === 'tenant');
  }
  const upload = `${op}/tenants/acme/firmware`;
  query('POST /tenants/{tenant}/firmware', `${upload}?device_type=ESP32`, 'version', false, 'POST', 'firmware bytes');
  query('POST /tenants/{tenant}/firmware', `${upload}?version=9.9.9`, 'device_type', false, 'POST', 'firmware bytes');

  // Headers: what the ESP updaters say about the device on each download form, the byte range
  // asked for, and the console's session cookie on the session routes and on an operator route
  // (sent without a token, so the cookie is what the guard reads).
  const downloads: [string, (headers: Record<string, string>) => Promise<Answer>][] = [
    [
      'POST /firmware/download',
      (headers) => request('POST', `${app.urls.ipfs}/firmware/download`, { token: f.deviceToken, body: { cid: f.cid }, headers }),
    ],
    ['GET /firmware/{cid}', (headers) => request('GET', `${app.urls.ipfs}/firmware/${f.cid}`, { token: f.deviceToken, headers })],
    ['GET /ipfs/{cid}', (headers) => request('GET', `${app.urls.ipfs}/ipfs/${f.cid}`, { token: f.deviceToken, headers })],
  ];
  const updaterHeaders = [
    'x-ESP8266-STA-MAC',
    'x-ESP8266-free-space',
    'x-ESP32-STA-MAC',
    'x-ESP32-free-space',
    'Range',
    'If-Range',
    'If-None-Match',
  ];
  for (const [route, send] of downloads) {
    for (const field of updaterHeaders) points.push({ route, place: 'header', field, send: (value) => send({ [field]: String(value) }) });
  }
  const cookie = (method: string, url: string) => (value: unknown) =>
    request(method, url, { headers: { cookie: `firmledger_session=${String(value)}` } });
  points.push(
    { route: 'GET /session', place: 'header', field: 'cookie', send: cookie('GET', `${op}/session`) },
    { route: 'POST /session/sign-out', place: 'header', field: 'cookie', send: cookie('POST', `${op}/session/sign-out`) },
    { route: 'GET /tenants', place: 'header', field: 'cookie', send: cookie('GET', `${op}/tenants`) },
  );
  return points;
}
