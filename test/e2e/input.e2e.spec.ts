import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_ID } from '#src/platform/common/input-rules.js';
import { request, startTestApp, TEST_ENGINE, type Answer, type TestApp } from '#test/support/harness.js';
import { createInputFixture, inputPoints, type InputFixture, type InputPoint } from '#test/support/input-points.js';

/** A 4xx `{"message"}` answer; returns its message. */
function refusal(answer: Answer, label: string): string {
  assert.ok(answer.status >= 400 && answer.status < 500, `${label}: ${answer.status} ${answer.text}`);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/, label);
  const { message } = answer.body as { message?: unknown };
  assert.equal(typeof message, 'string', `${label}: ${answer.text}`);
  return message as string;
}

/** A 400 whose message names `field`. */
function namesField(answer: Answer, field: string, label: string): void {
  const message = refusal(answer, label);
  assert.equal(answer.status, 400, `${label}: ${answer.text}`);
  assert.ok(message.includes(field), `${label}: the message does not name ${field}: ${message}`);
}

/**
 * Every class of bad input that once reached the database (and was a 500 on PostgreSQL, some on
 * SQLite too), sent to every input of every route that takes one, on the engine of this pass:
 * the answer is a 4xx `{"message"}` naming the field, or 404 for an id that cannot exist. Any
 * 500 the server answered also fails the spec when the app closes (the harness watches its log).
 */
describe(`bad input is a 4xx naming the field, on ${TEST_ENGINE}`, () => {
  let app: TestApp;
  let fixture: InputFixture;
  let points: InputPoint[];
  const sent = new Map<string, number>();
  const send = async (point: InputPoint, value: unknown): Promise<Answer> => {
    sent.set(point.route, (sent.get(point.route) ?? 0) + 1);
    return point.send(value);
  };
  const label = (point: InputPoint, value: unknown) => `${point.route} ${point.place} ${point.field} = ${JSON.stringify(value)}`;

  before(async () => {
    app = await startTestApp();
    fixture = await createInputFixture(app);
    points = inputPoints(fixture);
  });
  after(async () => {
    const lines = [...sent].map(([route, count]) => `${count} ${route}`);
    console.log(`requests per route on ${TEST_ENGINE}: ${[...sent.values()].reduce((a, b) => a + b, 0)}\n${lines.join('\n')}`);
    await app.close();
  });

  it('text with a NUL: 400 naming the field, in bodies, query strings and paths', async () => {
    for (const point of points.filter((p) => p.place !== 'header')) {
      for (const value of ['\u0000', 'ab\u0000c']) namesField(await send(point, value), point.field, label(point, value));
    }
  });

  it('text with a lone surrogate: 400 naming the field in a JSON body; a path that is not UTF-8 is 400', async () => {
    for (const point of points.filter((p) => p.place !== 'header')) {
      for (const value of ['\ud800', 'x\udc00y', '🚀\ud83d']) {
        const answer = await send(point, value);
        if (point.place === 'body') namesField(answer, point.field, label(point, value));
        else if (point.place === 'path')
          assert.deepEqual([answer.status, answer.body], [400, { message: 'Malformed URL' }], label(point, value));
        // A query string that is not UTF-8 is taken as the text it is (`%ED%A0%80`): any answer but a 5xx.
        else refusalOrSuccess(answer, label(point, value));
      }
    }
  });

  it('an id at or beyond the column’s range, or beyond 2^53: 404 like any id that names nothing', async () => {
    const texts = [String(MAX_ID), String(MAX_ID + 1), '9007199254740993', `1${'0'.repeat(30)}`];
    for (const point of points.filter((p) => p.id)) {
      // Body ids: firmware_id is a JSON integer; group and rollout_id are text of at most 20 digits, or integers.
      const values: unknown[] =
        point.place !== 'body'
          ? texts
          : point.field === 'firmware_id'
            ? [MAX_ID, MAX_ID + 1, 2 ** 53, 1e300]
            : [...texts.filter((text) => text.length <= 20), MAX_ID + 1, 2 ** 53];
      for (const value of values) {
        const answer = await send(point, value);
        const message = refusal(answer, label(point, value));
        assert.equal(answer.status, 404, `${label(point, value)}: ${answer.text}`);
        assert.match(message, /not found/i, label(point, value));
      }
    }
  });

  it('a page whose offset would overflow, a per_page out of bounds: 400 naming it', async () => {
    for (const point of points.filter((p) => p.field === 'page')) {
      for (const value of ['1e20', '184467440737095517', String(MAX_ID + 1), '9007199254740993', '1'.repeat(400), '0', '-1', '1.5']) {
        namesField(await send(point, value), 'page', label(point, value));
      }
    }
    for (const point of points.filter((p) => p.field === 'per_page')) {
      for (const value of ['501', '1e20', String(MAX_ID + 1), '0', 'many'])
        namesField(await send(point, value), 'per_page', label(point, value));
    }
  });

  it('null, objects and arrays where a body field takes a value, and non-arrays where it takes an array: 400 naming it', async () => {
    for (const point of points.filter((p) => p.place === 'body')) {
      const values: unknown[] =
        point.field === 'macs' ? [null, 'AC:67:B2:01:02:03', [null], [1], [['AC:67:B2:01:02:03']], {}] : [null, {}, [], ['1']];
      for (const value of values) {
        // A device may register with a null name: it is the mac then, as without one (some SDKs send none).
        if (point.route === 'POST /api/device/register' && point.field === 'name' && value === null) continue;
        namesField(await send(point, value), point.field, label(point, value));
      }
    }
  });

  it('a login timestamp written as a float, with an exponent or negative, is 400 naming it, whatever its value', async () => {
    const now = Math.floor(app.clock.now() / 1000);
    for (const literal of [`${now}.0`, `${now}.00`, `${now / 10}e1`, `${now}E0`, '-0', `-${now}`, `${now}.5`]) {
      const answer = await request('POST', `${app.urls.auth}/auth/login`, {
        rawBody: `{"device_key":"${fixture.tenant.deviceKey}","timestamp":${literal},"device_signature":"${'ab'.repeat(32)}"}`,
        headers: { 'content-type': 'application/json' },
      });
      namesField(answer, 'timestamp', `timestamp ${literal}`);
      assert.ok(answer.headers.get('x-ratelimit-limit'), 'a refused login still carries the rate-limit headers');
    }
  });

  it('header values that do not parse are ignored: the download is whole, a cookie naming no session signs nobody in', async () => {
    // What an HTTP client can put in a header: Latin-1 without control characters.
    const junk = [
      '',
      'x',
      'AC:67:B2',
      'ÿþ',
      '99999999999999999999',
      String(2 ** 53 + 2),
      '-1',
      '1e300',
      '0x10',
      '%00',
      '"',
      'a'.repeat(2000),
    ];
    for (const point of points.filter((p) => p.place === 'header')) {
      for (const value of junk) {
        const answer = await send(point, value);
        const where = label(point, value);
        if (point.field === 'cookie') {
          // An empty cookie is no cookie; any other value names a session that does not exist (or has ended).
          const refused = { message: value === '' ? 'Operator token is not valid' : 'Your session has ended: sign in again' };
          const signedOut = point.route === 'GET /tenants' ? [401, refused] : [200, { operator: null }];
          assert.deepEqual([answer.status, answer.body], signedOut, where);
        } else if (/STA-MAC|free-space|If-Range/.test(point.field)) {
          // Nothing here parses as a mac or a size the image exceeds: as if the header were absent.
          assert.equal(answer.status, 200, `${where}: ${answer.status} ${answer.text.slice(0, 200)}`);
          assert.equal(answer.bytes.length, Number(answer.headers.get('content-length')), where);
        } else refusalOrSuccess(answer, where);
      }
    }
  });

  it('still serves the valid requests of every route after all of it', async () => {
    const device = await request('GET', `${app.urls.vc}/api/device/${fixture.mac}`, { token: fixture.deviceToken });
    assert.equal(device.status, 200, device.text);
    const groups = await request('GET', `${app.urls.operator}/tenants/acme/groups/${fixture.group}`, { bearer: fixture.operatorToken });
    assert.equal(groups.status, 200, groups.text);
    assert.deepEqual(app.serverErrors(), []);
  });
});

/** Any answer but a 5xx; a 4xx carries `{"message"}`. */
function refusalOrSuccess(answer: Answer, label: string): void {
  assert.ok(answer.status < 500, `${label}: ${answer.status} ${answer.text}`);
  if (answer.status >= 400) refusal(answer, label);
}
