import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { COMPONENTS } from '#src/platform/config/components.js';
import { request, startTestApp, TEST_ENGINE, type Answer, type TestApp } from '#test/support/harness.js';
import { createInputFixture, urlText, type InputFixture } from '#test/support/input-points.js';
import { exampleOf, insideArbitrary, outsideValues, resolveSchema, type Schema } from '#test/support/openapi-values.js';

/** The repository root (this file runs from `dist/test/e2e`). */
const ROOT = join(import.meta.dirname, '..', '..', '..');
/** Values drawn from inside each parameter's or body field's schema, per request. */
const DRAWN = 4;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  example?: unknown;
  schema: Schema;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, unknown>;
  security?: Record<string, unknown>[];
}

interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas?: Record<string, Schema> };
}

/** One request of an operation: a value for each parameter, and a body. */
interface Variant {
  params: Record<string, unknown>;
  body?: unknown;
  /** What was changed, for the failure message. */
  what: string;
}

/** Headers the generator leaves to the client (they frame the request). */
const CLIENT_HEADERS = new Set(['content-length']);

/**
 * A generated pass over every operation of the committed OpenAPI documents (`openapi/*.json`),
 * on the engine of this pass: for each operation, requests whose parameters and body fields take,
 * one at a time, values drawn from their schema and values just outside it (see
 * `openapi-values.ts`), everything else the documented example. Every answer is one the
 * operation documents, never a 5xx, and a 4xx is `{"message"}`. Routes the documents gain are
 * covered without a change here.
 */
describe(`every operation of openapi/*.json with values from and just outside its schemas, on ${TEST_ENGINE}`, () => {
  let app: TestApp;
  let fixture: InputFixture;
  const cases = new Map<string, number>();

  before(async () => {
    app = await startTestApp();
    fixture = await createInputFixture(app);
  });
  after(async () => {
    const total = [...cases.values()].reduce((a, b) => a + b, 0);
    console.log(`generated requests per operation on ${TEST_ENGINE}: ${total}\n${[...cases].map(([op, n]) => `${n} ${op}`).join('\n')}`);
    await app.close();
  });

  // One document per component (`npm run openapi`), each sent to that component's base URL.
  for (const file of COMPONENTS) {
    it(`openapi/${file}.json`, async () => {
      const doc = JSON.parse(readFileSync(join(ROOT, 'openapi', `${file}.json`), 'utf8')) as OpenApiDocument;
      const components = doc.components.schemas ?? {};
      const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })),
      );
      // Deleting the fixture's device goes last, so the other operations find it.
      operations.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
      for (const { path, method, operation } of operations) {
        const label = `${method} ${path}`;
        for (const variant of variants(operation, components)) {
          cases.set(`${file} ${label}`, (cases.get(`${file} ${label}`) ?? 0) + 1);
          const answer = await send(app.urls[file], path, method, operation, variant, fixture);
          if (answer === undefined) continue; // a header value no HTTP client can send
          const message = `${label} with ${variant.what}: ${answer.status} ${answer.text.slice(0, 300)}`;
          assert.ok(answer.status < 500, message);
          assert.ok(String(answer.status) in operation.responses, `undocumented status: ${message}`);
          if (answer.status >= 400) assert.equal(typeof (answer.body as { message?: unknown }).message, 'string', message);
        }
      }
    });
  }
});

/** The requests of one operation: the documented example, then each input drawn from and just outside its schema. */
function variants(operation: Operation, components: Record<string, Schema>): Variant[] {
  const parameters = (operation.parameters ?? []).filter((p) => !(p.in === 'header' && CLIENT_HEADERS.has(p.name.toLowerCase())));
  const example: Record<string, unknown> = {};
  for (const parameter of parameters) {
    if (parameter.required || parameter.in === 'path')
      example[parameter.name] = parameter.example ?? exampleOf(parameter.schema, components);
  }
  const json = operation.requestBody?.content['application/json']?.schema;
  const bodySchema = json === undefined ? undefined : resolveSchema(json, components);
  const exampleBody = bodySchema === undefined ? undefined : exampleOf(bodySchema, components);
  const list: Variant[] = [{ params: example, body: exampleBody, what: 'the documented examples' }];

  for (const parameter of parameters) {
    const drawn = fc.sample(insideArbitrary(parameter.schema, components), DRAWN);
    for (const value of [...drawn, ...outsideValues(parameter.schema, components)]) {
      list.push({
        params: { ...example, [parameter.name]: value },
        body: exampleBody,
        what: `${parameter.in} ${parameter.name} = ${JSON.stringify(value)}`,
      });
    }
  }
  if (bodySchema !== undefined && typeof exampleBody === 'object' && exampleBody !== null) {
    const fields = exampleBody as Record<string, unknown>;
    for (const [name, schema] of Object.entries(bodySchema.properties ?? {})) {
      const drawn = fc.sample(insideArbitrary(schema, components), DRAWN);
      for (const value of [...drawn, ...outsideValues(schema, components)]) {
        list.push({ params: example, body: { ...fields, [name]: value }, what: `body ${name} = ${JSON.stringify(value)}` });
      }
      const without = Object.fromEntries(Object.entries(fields).filter(([field]) => field !== name));
      list.push({ params: example, body: without, what: `body without ${name}` });
    }
    for (const body of [null, [], 'x', 1, {}]) list.push({ params: example, body, what: `body ${JSON.stringify(body)}` });
  }
  return list;
}

/**
 * Sends one variant: path parameters into the path, query parameters into the query string
 * (arrays as repeated parameters), header parameters as headers, the body as JSON (or, for a
 * binary body, a few bytes), with the token the operation's security asks for.
 * @returns `undefined` when a header value cannot be sent (not a valid HTTP header value).
 */
async function send(
  base: string,
  path: string,
  method: string,
  operation: Operation,
  variant: Variant,
  fixture: InputFixture,
): Promise<Answer | undefined> {
  let url = path;
  const query: string[] = [];
  const headers: Record<string, string> = {};
  for (const parameter of operation.parameters ?? []) {
    if (!(parameter.name in variant.params)) continue;
    const value = variant.params[parameter.name];
    const texts = (Array.isArray(value) ? value : [value]).map((item) =>
      typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item),
    );
    if (parameter.in === 'path') url = url.replace(`{${parameter.name}}`, urlText(texts.join(',')));
    else if (parameter.in === 'query') for (const text of texts) query.push(`${parameter.name}=${urlText(text)}`);
    else headers[parameter.name] = texts.join(',');
  }
  const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
  const auth = schemes.includes('operatorToken')
    ? { bearer: fixture.operatorToken }
    : schemes.includes('menderToken')
      ? { bearer: fixture.menderToken }
      : schemes.some((scheme) => scheme.startsWith('device'))
        ? { token: fixture.deviceToken }
        : {};
  // A DDI operation: the target token of the fixture's DDI device (the documents' examples name it: acme, pump-7).
  if (schemes.includes('targetToken')) headers['authorization'] ??= fixture.ddiAuthorization;
  const binary = operation.requestBody?.content['application/octet-stream'] !== undefined;
  const target = `${base}${url}${query.length > 0 ? `?${query.join('&')}` : ''}`;
  try {
    return await request(method, target, {
      ...auth,
      headers: { ...headers, ...(binary ? { 'content-type': 'application/octet-stream' } : {}) },
      ...(binary ? { rawBody: 'firmware bytes' } : variant.body !== undefined ? { body: variant.body } : {}),
    });
  } catch (error) {
    if (error instanceof TypeError && Object.keys(headers).length > 0) return undefined;
    throw error;
  }
}
