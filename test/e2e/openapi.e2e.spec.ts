import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Script } from 'node:vm';
import type { ExampleObject, OpenAPIObject, OperationObject, ParameterObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import { OPENAPI_DIR } from '#src/app/openapi/openapi-files.js';
import { get, request, startTestApp, type TestApp } from '#test/support/harness.js';

// Issue 3 "OpenAPI": every component serves its own document and Swagger UI under its own base URL.

type Component = 'auth' | 'vc' | 'bc' | 'operator' | 'ipfs' | 'tools' | 'ddi' | 'mender';
const COMPONENTS: Component[] = ['auth', 'vc', 'bc', 'operator', 'ipfs', 'tools', 'ddi', 'mender'];
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;
const NOT_FOUND = { message: 'Not Found' };

/** Fetches and parses `{base}/docs/json`. */
async function documentAt(base: string): Promise<OpenAPIObject> {
  const answer = await get(`${base}/docs/json`);
  assert.equal(answer.status, 200, `${base}/docs/json: ${answer.status} ${answer.text.slice(0, 200)}`);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
  return answer.body as OpenAPIObject;
}

/** Every operation of a document with its path and method. */
function operations(document: OpenAPIObject): { path: string; method: string; operation: OperationObject }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ path, method, operation: item[method]! })),
  );
}

/** `/api/device/{mac}` with every path parameter replaced by its documented example. */
function examplePath(path: string, operation: OperationObject): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const parameter = (operation.parameters as ParameterObject[]).find((p) => p.in === 'path' && p.name === name);
    const example = (parameter?.example ?? (parameter?.schema as SchemaObject | undefined)?.example) as string | number | undefined;
    assert.ok(example !== undefined, `path parameter ${name} of ${path} has an example`);
    return encodeURIComponent(String(example));
  });
}

/** Where a document's server points, seen from `base` (the listener the document was fetched from). */
function serverUrl(base: string, document: OpenAPIObject): string {
  assert.equal(document.servers?.length, 1, 'one server');
  return new URL(document.servers[0].url, new URL(base).origin).href.replace(/\/$/, '');
}

/** The asset URLs (`href`, `src`) of an HTML page, resolved against the page's URL. */
function assetUrls(pageUrl: string, html: string): string[] {
  return [...html.matchAll(/\b(?:href|src)="([^"]+)"/g)].map((match) => new URL(match[1], pageUrl).href);
}

/** Loads Swagger UI at `pageUrl` as a browser would: the page, every asset, and the document its init script loads. */
async function assertSwaggerUiLoads(pageUrl: string, documentTitle: string): Promise<void> {
  const page = await get(pageUrl);
  assert.equal(page.status, 200, `${pageUrl}: ${page.status}`);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  assert.ok(page.text.includes(`<title>${documentTitle}</title>`), `${pageUrl} is titled ${documentTitle}`);
  const assets = assetUrls(pageUrl, page.text);
  for (const name of ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-init.js', 'favicon-32x32.png']) {
    assert.ok(
      assets.some((url) => url.endsWith(`/docs/${name}`)),
      `${pageUrl} loads ${name} from beside the docs: ${assets.join(' ')}`,
    );
  }
  const types: Record<string, RegExp> = { css: /^text\/css/, js: /javascript/, png: /^image\/png/ };
  for (const url of assets) {
    const asset = await get(url);
    assert.equal(asset.status, 200, `asset ${url}: ${asset.status}`);
    assert.match(asset.headers.get('content-type') ?? '', types[url.split('.').pop()!], `content type of ${url}`);
    assert.ok(asset.bytes.length > 0, `asset ${url} has a body`);
    if (url.endsWith('/swagger-ui-init.js')) {
      assert.doesNotThrow(() => new Script(asset.text), 'the init script compiles');
      // The init script loads `json` relative to its own URL.
      const document = await get(new URL('json', url).href);
      assert.equal(document.status, 200);
      assert.equal((document.body as OpenAPIObject).info.title, documentTitle);
    }
  }
}

/** The blockchain component's paths: the lookups, their proofs, the public transparency log. */
const BC_PATHS = [
  '/checkpoint',
  '/checkpoint/cosignature',
  '/checkpoint/latest',
  '/device/get',
  '/device/proof',
  '/device/{id}',
  '/device/{id}/proof',
  '/firmware/get',
  '/firmware/proof',
  '/firmware/{id}',
  '/firmware/{id}/bundle',
  '/firmware/{id}/proof',
  '/proof/consistency',
  '/proof/inclusion/{seq}',
  '/tile/{path}',
];

describe('OpenAPI on separate listeners (no path prefixes)', () => {
  let app: TestApp;
  const documents = {} as Record<Component, OpenAPIObject>;

  before(async () => {
    app = await startTestApp();
    for (const component of COMPONENTS) documents[component] = await documentAt(app.urls[component]);
  });
  after(() => app.close());

  it('serves each component its own document, with only its own paths', () => {
    assert.deepEqual(Object.keys(documents.auth.paths), ['/auth/login']);
    assert.deepEqual(Object.keys(documents.bc.paths), BC_PATHS);
    assert.deepEqual(Object.keys(documents.vc.paths), [
      '/api/device',
      '/api/device/failure/rollout',
      '/api/device/next/rollout',
      '/api/device/register',
      '/api/device/success/rollout',
      '/api/device/{mac}',
      '/api/report/{type}',
    ]);
    assert.deepEqual(Object.keys(documents.ipfs.paths), ['/firmware/download', '/firmware/{cid}', '/ipfs/{cid}', '/tuf/{file}']);
    assert.deepEqual(Object.keys(documents.tools.paths), ['/fingerprints']);
    assert.deepEqual(Object.keys(documents.ddi.paths), [
      '/{tenant}/controller/v1/{controllerId}',
      '/{tenant}/controller/v1/{controllerId}/cancelAction/{actionId}',
      '/{tenant}/controller/v1/{controllerId}/cancelAction/{actionId}/feedback',
      '/{tenant}/controller/v1/{controllerId}/configData',
      '/{tenant}/controller/v1/{controllerId}/deploymentBase/{actionId}',
      '/{tenant}/controller/v1/{controllerId}/deploymentBase/{actionId}/feedback',
      '/{tenant}/controller/v1/{controllerId}/installedBase/{actionId}',
      '/{tenant}/controller/v1/{controllerId}/softwaremodules/{softwareModuleId}/artifacts',
      '/{tenant}/controller/v1/{controllerId}/softwaremodules/{softwareModuleId}/artifacts/{fileName}',
    ]);
    assert.deepEqual(Object.keys(documents.mender.paths), [
      '/api/devices/v1/authentication/auth_requests',
      '/api/devices/v1/deployments/device/deployments/next',
      '/api/devices/v1/deployments/device/deployments/{id}/log',
      '/api/devices/v1/deployments/device/deployments/{id}/status',
      '/api/devices/v1/deployments/download/{tenantId}/{firmwareId}/{deviceId}',
      '/api/devices/v1/inventory/device/attributes',
      '/api/devices/v2/deployments/device/deployments/next',
    ]);
    assert.deepEqual(Object.keys(documents.operator.paths), [
      '/ledger/checkpoint',
      '/ledger/consistency',
      '/ledger/entries',
      '/ledger/entries/{seq}/proof',
      '/ledger/key',
      '/ledger/tile/{path}',
      '/ledger/verify',
      '/session',
      '/session/sign-out',
      '/tenants',
      '/tenants/{tenant}',
      '/tenants/{tenant}/artifact-verify-key',
      '/tenants/{tenant}/customer-key/rotate',
      '/tenants/{tenant}/ddi-polling',
      '/tenants/{tenant}/device-auth-sets',
      '/tenants/{tenant}/device-auth-sets/{id}/accept',
      '/tenants/{tenant}/device-auth-sets/{id}/reject',
      '/tenants/{tenant}/device-keys',
      '/tenants/{tenant}/device-keys/{id}/auto-accept',
      '/tenants/{tenant}/device-keys/{id}/ddi-gateway',
      '/tenants/{tenant}/device-keys/{id}/revoke',
      '/tenants/{tenant}/devices',
      '/tenants/{tenant}/devices/import',
      '/tenants/{tenant}/devices/labels',
      '/tenants/{tenant}/devices/{mac}',
      '/tenants/{tenant}/devices/{mac}/decisions',
      '/tenants/{tenant}/devices/{mac}/decommission',
      '/tenants/{tenant}/devices/{mac}/labels',
      '/tenants/{tenant}/devices/{mac}/rollouts',
      '/tenants/{tenant}/devices/{mac}/target-token/rotate',
      '/tenants/{tenant}/firmware',
      '/tenants/{tenant}/firmware/mender',
      '/tenants/{tenant}/firmware/{id}',
      '/tenants/{tenant}/fleet',
      '/tenants/{tenant}/groups',
      '/tenants/{tenant}/groups/{group}',
      '/tenants/{tenant}/groups/{group}/filter',
      '/tenants/{tenant}/groups/{group}/members',
      '/tenants/{tenant}/groups/{group}/members/remove',
      '/tenants/{tenant}/rollouts',
      '/tenants/{tenant}/rollouts/{id}',
      '/tenants/{tenant}/rollouts/{id}/approve',
      '/tenants/{tenant}/rollouts/{id}/cancel',
      '/tenants/{tenant}/rollouts/{id}/devices',
      '/tenants/{tenant}/rollouts/{id}/pause',
      '/tenants/{tenant}/rollouts/{id}/resume',
      '/tenants/{tenant}/rollouts/{id}/retry',
      '/tenants/{tenant}/rollouts/{id}/start',
    ]);
    // Health, readiness and metrics are outside the documents.
    for (const component of COMPONENTS) {
      assert.deepEqual(
        Object.keys(documents[component].paths).filter((path) => /^\/(healthz|readyz|metrics)$/.test(path)),
        [],
        component,
      );
    }
    // A controller (its operations' ids) belongs to one component: no operation is in two documents.
    const owner = new Map<string, Component>();
    for (const component of COMPONENTS) {
      assert.equal(documents[component].openapi, '3.0.0');
      for (const { path, operation } of operations(documents[component])) {
        assert.doesNotMatch(path, /__/, `${component}: ${path} carries no routing marker`);
        const id = operation.operationId ?? `${component} ${path}`;
        assert.equal(owner.get(id), undefined, `${id} is in the ${owner.get(id)} and ${component} documents`);
        owner.set(id, component);
      }
    }
  });

  it('serves what npm run openapi committed (same code, same default paths)', () => {
    for (const component of COMPONENTS) {
      const committed = JSON.parse(readFileSync(new URL(`${component}.json`, OPENAPI_DIR), 'utf8')) as OpenAPIObject;
      assert.deepEqual(documents[component], committed, `${component}: served document = openapi/${component}.json`);
    }
  });

  it('gives an example for every property of every schema and every parameter', () => {
    const missing: string[] = [];
    const walk = (where: string, schema: SchemaObject): void => {
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        const field = property as SchemaObject;
        if (!('$ref' in field) && field.example === undefined) missing.push(`${where}.${name}`);
        if (field.type === 'object') walk(`${where}.${name}`, field);
        if (field.type === 'array' && field.items && !('$ref' in field.items)) walk(`${where}.${name}[]`, field.items);
      }
    };
    for (const component of COMPONENTS) {
      for (const [name, schema] of Object.entries(documents[component].components?.schemas ?? {})) {
        walk(`${component}: ${name}`, schema as SchemaObject);
      }
      for (const { path, method, operation } of operations(documents[component])) {
        for (const parameter of (operation.parameters ?? []) as ParameterObject[]) {
          if (parameter.example === undefined && (parameter.schema as SchemaObject | undefined)?.example === undefined) {
            missing.push(`${component}: ${method.toUpperCase()} ${path} parameter ${parameter.name}`);
          }
        }
      }
    }
    assert.ok(Object.keys(documents.vc.components?.schemas ?? {}).length >= 6, 'the walk sees the version controller schemas');
    assert.deepEqual(missing, [], `fields without an example: ${missing.join(', ')}`);
  });

  it('documents every error as a message object with its exact text; an operator 400 as a message naming its field', () => {
    for (const component of COMPONENTS) {
      for (const { path, method, operation } of operations(documents[component])) {
        const where = `${component}: ${method.toUpperCase()} ${path}`;
        assert.ok(operation.summary, `${where} has a summary`);
        assert.ok(operation.tags?.length, `${where} has a tag`);
        assert.ok(operation.responses['500'], `${where} documents 500`);
        for (const [status, response] of Object.entries(operation.responses)) {
          if (Number(status) < 400) continue;
          const json = (response as { content?: Record<string, { schema?: unknown; example?: unknown; examples?: unknown }> }).content?.[
            'application/json'
          ];
          // The operator API's 400 answers name the field beside the message; the device interface's never do.
          const schema = component === 'operator' && status === '400' ? 'FieldMessageResponse' : 'MessageResponse';
          assert.deepEqual(json?.schema, { $ref: `#/components/schemas/${schema}` }, `${where} ${status} is a message object`);
          assert.ok(json?.example !== undefined || json?.examples !== undefined, `${where} ${status} shows the exact message`);
        }
      }
    }
  });

  it('declares the device token schemes on every version controller, blockchain and IPFS operation, the operator token on every operator operation, none on login and fingerprints', () => {
    assert.equal(documents.auth.paths['/auth/login'].post?.security, undefined);
    assert.equal(documents.tools.paths['/fingerprints'].get?.security, undefined);
    assert.equal(documents.tools.components?.securitySchemes, undefined);
    for (const component of ['vc', 'bc', 'ipfs'] as const) {
      assert.deepEqual(documents[component].components?.securitySchemes, {
        deviceToken: {
          type: 'apiKey',
          in: 'header',
          name: 'x-access-token',
          description: 'Device JWT from `POST {auth_url}/auth/login` in `X-Access-Token` (any case).',
        },
        deviceBearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'The same device JWT as `Authorization: Bearer <token>`.',
        },
      });
      for (const { path, operation } of operations(documents[component])) {
        if (component === 'bc' && /^\/(checkpoint|proof\/|tile\/)/.test(path)) {
          // The transparency log's checkpoints, proofs of hashes and tiles are public (README: Transparency).
          assert.equal(operation.security, undefined, `${component} ${path}`);
          continue;
        }
        assert.deepEqual(operation.security, [{ deviceToken: [] }, { deviceBearer: [] }], `${component} ${path}`);
      }
    }
    assert.deepEqual(Object.keys(documents.ddi.components?.securitySchemes ?? {}), ['targetToken', 'gatewayToken']);
    for (const { path, method, operation } of operations(documents.ddi)) {
      const where = `ddi ${method.toUpperCase()} ${path}`;
      assert.deepEqual(operation.security, [{ targetToken: [] }, { gatewayToken: [] }], where);
      assert.deepEqual(documentedMessages(operation.responses['401']), ['A valid TargetToken or GatewayToken is required'], where);
    }
    assert.deepEqual(documents.operator.components?.securitySchemes, {
      operatorToken: { type: 'http', scheme: 'bearer', description: 'Operator token as `Authorization: Bearer <token>`.' },
      operatorSession: {
        type: 'apiKey',
        in: 'cookie',
        name: 'firmledger_session',
        description: 'The operator console’s session cookie, set by `POST /session` (browsers send it themselves).',
      },
    });
    for (const { path, method, operation } of operations(documents.operator)) {
      const where = `operator ${method.toUpperCase()} ${path}`;
      if (path.startsWith('/session')) {
        // Signing in and out, and asking who is signed in, need no credentials.
        assert.equal(operation.security, undefined, where);
        continue;
      }
      assert.deepEqual(operation.security, [{ operatorToken: [] }, { operatorSession: [] }], where);
      assert.deepEqual(
        documentedMessages(operation.responses['401']),
        ['Operator token is not valid', 'Your session has ended: sign in again'],
        where,
      );
      // Every change (a POST, PUT or DELETE) documents the 403 of a viewer and of a cross-site request.
      if (method !== 'get') {
        assert.deepEqual(
          documentedMessages(operation.responses['403']),
          ['Viewers may only read: this change needs the admin role', 'Cross-site request refused'],
          where,
        );
      } else assert.equal(operation.responses['403'], undefined, where);
    }
  });

  it('declares the Mender device token on every Mender operation but authentication and the signed download, and Mender’s exact success codes', () => {
    assert.deepEqual(Object.keys(documents.mender.components?.securitySchemes ?? {}), ['menderToken']);
    for (const { path, method, operation } of operations(documents.mender)) {
      const where = `mender ${method.toUpperCase()} ${path}`;
      const open = path.endsWith('/auth_requests') || path.includes('/download/');
      assert.deepEqual(operation.security, open ? undefined : [{ menderToken: [] }], where);
      const success = Object.keys(operation.responses).filter((status) => Number(status) < 300);
      const expected = path.endsWith('/next')
        ? ['200', '204']
        : path.endsWith('/status') || path.endsWith('/log')
          ? ['204']
          : path.includes('/download/')
            ? ['200', '206']
            : ['200'];
      assert.deepEqual(success, expected, where);
    }
  });

  it('documents the firmware upload as a binary body', () => {
    const upload = documents.operator.paths['/tenants/{tenant}/firmware'].post!;
    assert.deepEqual(upload.requestBody, {
      required: true,
      description: 'The firmware binary, raw bytes.',
      content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
    });
    assert.deepEqual(Object.keys(upload.responses).sort(), ['201', '400', '401', '403', '404', '409', '413', '415', '500']);
  });

  it('documents the three firmware download forms alike, and the reports with their media types', () => {
    const forms = [
      documents.ipfs.paths['/firmware/download'].post!,
      documents.ipfs.paths['/firmware/{cid}'].get!,
      documents.ipfs.paths['/ipfs/{cid}'].get!,
    ];
    for (const download of forms) {
      // 400: a body that is not right, or a path parameter whose text is not storable.
      const body = download.requestBody ? ['413', '415'] : [];
      assert.deepEqual(
        Object.keys(download.responses).sort(),
        ['200', '206', '304', '400', '401', '403', '404', '416', '500', ...body].sort(),
      );
      if (!download.requestBody) {
        const refusals = (download.responses['400'] as ResponseObject).content!['application/json'].examples as Record<
          string,
          ExampleObject
        >;
        assert.deepEqual(
          Object.values(refusals).map(({ value }) => value as unknown),
          [{ message: 'cid must be valid Unicode text without NUL characters' }, { message: 'Malformed URL' }],
        );
      }
      for (const status of ['200', '206']) {
        const response = download.responses[status] as { content: object; headers: object };
        assert.deepEqual(Object.keys(response.content), ['application/octet-stream']);
        for (const header of ['Content-Length', 'x-MD5', 'ETag']) assert.ok(header in response.headers, `${status} documents ${header}`);
      }
      assert.deepEqual(
        ((download.parameters ?? []) as ParameterObject[])
          .filter((p) => p.in === 'header')
          .map((p) => p.name)
          .sort(),
        ['If-None-Match', 'If-Range', 'Range', 'x-ESP32-STA-MAC', 'x-ESP32-free-space', 'x-ESP8266-STA-MAC', 'x-ESP8266-free-space'],
      );
    }
    const report = documents.vc.paths['/api/report/{type}'].get!;
    assert.deepEqual(Object.keys((report.responses['200'] as { content: object }).content), [
      'application/json',
      'application/xml',
      'application/pdf',
    ]);
  });

  it('documents response shapes with the keys real answers have, in order', async () => {
    const tenant = await app.createTenant();
    const token = await app.login(tenant);
    const mac = '02:00:00:00:0A:01';
    const firmware = await app.publishFirmware(tenant, '2.0.0', Buffer.from('openapi firmware'));
    await app.createGroup(tenant, 'docs', [mac]);
    await app.createRollout(tenant, { firmwareId: firmware.id, group: 'docs' });
    const registered = await request('POST', `${app.urls.vc}/api/device/register`, {
      token,
      body: { mac, firmware_version: '1.0.0', name: 'docs' },
    });
    assert.equal(registered.status, 200, registered.text);
    const keysOf = (document: OpenAPIObject, schema: string) =>
      Object.keys((document.components!.schemas![schema] as SchemaObject).properties ?? {});

    const device = await get(`${app.urls.vc}/api/device/${mac}`, token);
    assert.deepEqual(Object.keys(device.body as object), keysOf(documents.vc, 'DeviceResponse'));
    const next = await request('POST', `${app.urls.vc}/api/device/next/rollout`, { token, body: { mac, firmware_version: '1.0.0' } });
    assert.deepEqual(Object.keys(next.body as object), keysOf(documents.vc, 'RolloutResponse'));
    const record = await get(`${app.urls.bc}/device/${mac}`, token);
    assert.deepEqual(Object.keys(record.body as object), keysOf(documents.bc, 'ChainDeviceRecord'));
    const firmwareRecord = await get(`${app.urls.bc}/firmware/${firmware.id}`, token);
    assert.deepEqual(Object.keys(firmwareRecord.body as object), keysOf(documents.bc, 'ChainFirmwareRecord'));
    const firmwareByBody = await request('POST', `${app.urls.bc}/firmware/get`, { token, body: { id: String(firmware.id) } });
    assert.deepEqual(Object.keys(firmwareByBody.body as object), keysOf(documents.bc, 'ChainFirmwareRecord'));
    const fingerprints = await get(`${app.urls.tools}/fingerprints`);
    assert.deepEqual(Object.keys(fingerprints.body as object), keysOf(documents.tools, 'FingerprintsResponse'));
    assert.deepEqual(Object.keys(registered.body as object), keysOf(documents.vc, 'MessageResponse'));

    const bearer = await app.createOperatorToken();
    const operator = (method: string, path: string, body?: unknown) => request(method, `${app.urls.operator}${path}`, { bearer, body });
    const created = await operator('POST', '/tenants', { name: 'openapi-docs' });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(Object.keys(created.body as object), keysOf(documents.operator, 'TenantWithKeyResponse'));
    const rollouts = await operator('GET', `/tenants/${tenant.id}/rollouts`);
    assert.equal(rollouts.status, 200, rollouts.text);
    assert.deepEqual(Object.keys(rollouts.body as object), keysOf(documents.operator, 'RolloutPage'));
    const [first] = (rollouts.body as { items: { id: number }[] }).items;
    const rollout = await operator('GET', `/tenants/${tenant.id}/rollouts/${first.id}`);
    assert.equal(rollout.status, 200, rollout.text);
    assert.deepEqual(Object.keys(rollout.body as object), keysOf(documents.operator, 'OperatorRolloutResponse'));
    assert.deepEqual(Object.keys(first), keysOf(documents.operator, 'OperatorRolloutResponse'));
    const group = await operator('GET', `/tenants/${tenant.id}/groups/docs`);
    assert.deepEqual(Object.keys(group.body as object), keysOf(documents.operator, 'GroupDetailResponse'));
    assert.deepEqual(Object.keys((group.body as { member_macs: object }).member_macs), keysOf(documents.operator, 'GroupMemberPage'));
    const verify = await operator('GET', '/ledger/verify');
    assert.deepEqual(Object.keys(verify.body as object), keysOf(documents.operator, 'LedgerVerifyResponse'));
    const missing = await operator('GET', `/tenants/${tenant.id}/rollouts/999999`);
    assert.equal(missing.status, 404, missing.text);
    assert.deepEqual(missing.body, { message: 'Rollout not found' });
    const refused = await operator('POST', `/tenants/${tenant.id}/groups`, { name: 'docs-2', macs: ['not a mac'] });
    assert.equal(refused.status, 400, refused.text);
    assert.deepEqual(Object.keys(refused.body as object), keysOf(documents.operator, 'FieldMessageResponse'));
  });

  it('serves a Swagger UI whose assets load, with and without a trailing slash', async () => {
    for (const component of COMPONENTS) {
      await assertSwaggerUiLoads(`${app.urls[component]}/docs`, documents[component].info.title);
    }
    await assertSwaggerUiLoads(`${app.urls.vc}/docs/`, documents.vc.info.title);
  });

  it('serves only the Swagger UI files the page needs', async () => {
    for (const file of ['index.html', 'swagger-initializer.js', 'package.json', 'oauth2-redirect.html']) {
      const answer = await get(`${app.urls.vc}/docs/${file}`);
      assert.equal(answer.status, 404, `${file}: ${answer.status}`);
      assert.deepEqual(answer.body, NOT_FOUND);
    }
  });
});

describe('OpenAPI with path prefixes and a shared listener', () => {
  let app: TestApp;

  before(async () => {
    app = await startTestApp(
      {},
      {
        AUTH_URL: 'http://127.0.0.1:{port0}/id',
        VC_URL: 'http://127.0.0.1:{port0}/fw',
        BC_URL: 'http://127.0.0.1:{port1}/chain',
        OPERATOR_URL: 'http://127.0.0.1:{port3}',
      },
    );
  });
  after(() => app.close());

  it('serves each document under its own prefix, paths relative to it and the prefix as server', async () => {
    const auth = await documentAt(app.urls.auth);
    const vc = await documentAt(app.urls.vc);
    const bc = await documentAt(app.urls.bc);
    assert.deepEqual(Object.keys(auth.paths), ['/auth/login']);
    assert.ok('/api/device/register' in vc.paths && !('/auth/login' in vc.paths));
    assert.deepEqual(Object.keys(bc.paths), BC_PATHS);
    assert.deepEqual(
      [auth, vc, bc].map((d) => d.servers?.map((s) => s.url)),
      [['/id'], ['/fw'], ['/chain']],
    );
    assert.equal(serverUrl(app.urls.vc, vc), app.urls.vc);
  });

  it('documents paths that answer where the server points (a request without a token is the documented 401)', async () => {
    for (const base of [app.urls.vc, app.urls.bc, app.urls.ipfs, app.urls.operator]) {
      const document = await documentAt(base);
      const ops = operations(document);
      assert.ok(ops.length > 0);
      for (const { path, method, operation } of ops) {
        if (operation.security === undefined) continue; // no credentials needed: sessions, the public transparency log
        const url = `${serverUrl(base, document)}${examplePath(path, operation)}`;
        const answer = await request(method.toUpperCase(), url);
        assert.equal(answer.status, 401, `${method.toUpperCase()} ${url}: ${answer.status} ${answer.text}`);
        assert.equal(
          (answer.body as { message: string }).message,
          documentedMessages(operation.responses['401'])[0],
          `${method.toUpperCase()} ${url}`,
        );
      }
    }
  });

  it('does not serve a component’s docs on another listener or prefix', async () => {
    const authOrigin = new URL(app.urls.auth).origin; // shared by AUTH (/id) and VC (/fw)
    const bcOrigin = new URL(app.urls.bc).origin;
    for (const url of [
      `${authOrigin}/docs/json`,
      `${authOrigin}/docs`,
      `${authOrigin}/chain/docs/json`,
      `${bcOrigin}/fw/docs/json`,
      `${bcOrigin}/fw/docs`,
      `${bcOrigin}/fw/docs/swagger-ui.css`,
      `${bcOrigin}/id/docs/json`,
      `${app.urls.operator}/fw/docs/json`,
      `${app.urls.vc}/__vc/docs/json`,
      `${authOrigin}/__vc/docs/json`,
    ]) {
      const answer = await get(url);
      assert.equal(answer.status, 404, `${url}: ${answer.status}`);
      assert.deepEqual(answer.body, NOT_FOUND, url);
    }
  });

  it('serves the Swagger UI and its assets behind the prefix', async () => {
    await assertSwaggerUiLoads(`${app.urls.vc}/docs`, 'firmledger version controller');
    await assertSwaggerUiLoads(`${app.urls.auth}/docs/`, 'firmledger authentication component');
    await assertSwaggerUiLoads(`${app.urls.bc}/docs`, 'firmledger blockchain lookup');
  });
});

describe('OpenAPI for components with the very same base URL', () => {
  let app: TestApp;

  before(async () => {
    app = await startTestApp({}, { AUTH_URL: 'http://127.0.0.1:{port0}/dev', VC_URL: 'http://127.0.0.1:{port0}/dev' });
  });
  after(() => app.close());

  it('serves one document with the routes of both', async () => {
    const document = await documentAt(app.urls.vc);
    assert.ok('/auth/login' in document.paths && '/api/device/register' in document.paths);
    assert.ok(!('/device/{id}' in document.paths));
    assert.deepEqual(
      document.servers?.map((s) => s.url),
      ['/dev'],
    );
    await assertSwaggerUiLoads(`${app.urls.vc}/docs`, document.info.title);
  });
});

/** The `message` texts a documented error answer gives: its one example, or each of its examples in order. */
function documentedMessages(response: unknown): string[] {
  const json = (
    response as { content: Record<string, { example?: { message: string }; examples?: Record<string, { value: { message: string } }> }> }
  ).content['application/json'];
  if (json.example) return [json.example.message];
  return Object.values(json.examples ?? {}).map((example) => example.value.message);
}
