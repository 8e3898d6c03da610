import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startTestApp, TEST_ENGINE, type Answer, type TestApp } from '#test/support/harness.js';
import { hostileJson, hostileParam } from '#test/support/hostile-values.js';
import { createInputFixture, inputPoints, type InputPoint } from '#test/support/input-points.js';

/** Generated values per input (body field, query parameter, path parameter, header) of every route. */
const RUNS_PER_INPUT = 30;

/**
 * Property: whatever value an input of a route receives (a body field, a query or path parameter,
 * a header the route reads; any Unicode text with NUL and lone surrogates, integers at and beyond
 * 2^31, 2^53 and 2^63, floats, null, booleans, arrays and objects where a scalar is expected), the answer is a 2xx or a 4xx with `{"message"}`, never a
 * 5xx; and the server logged no 500 (the harness fails the spec when it did). fast-check prints
 * the seed and the smallest failing value on a failure.
 */
describe(`any value in any input: 2xx or 4xx, never 5xx, on ${TEST_ENGINE} (fast-check)`, () => {
  let app: TestApp;
  let points: InputPoint[];
  const cases = new Map<string, number>();

  before(async () => {
    app = await startTestApp();
    points = inputPoints(await createInputFixture(app));
  });
  after(async () => {
    const total = [...cases.values()].reduce((a, b) => a + b, 0);
    console.log(`generated cases per route on ${TEST_ENGINE}: ${total}\n${[...cases].map(([route, n]) => `${n} ${route}`).join('\n')}`);
    await app.close();
  });

  it(`sends ${RUNS_PER_INPUT} generated values to every input of every route`, async () => {
    for (const point of points) {
      const values = point.place === 'body' ? hostileJson : hostileParam;
      // Header values are sent as their text; the ones a client cannot send are skipped below.
      await fc.assert(
        fc.asyncProperty(values, async (value) => {
          const answer: Answer | undefined = await point.send(value).catch((error: unknown) => {
            // A header value no HTTP client can send (a NUL, a line break, beyond Latin-1) never reaches the server.
            if (point.place === 'header' && error instanceof TypeError) return undefined;
            throw error;
          });
          if (answer === undefined) return;
          cases.set(point.route, (cases.get(point.route) ?? 0) + 1);
          const label = `${point.route} ${point.place} ${point.field} = ${JSON.stringify(value)}: ${answer.status} ${answer.text}`;
          assert.ok(answer.status < 500, label);
          if (answer.status >= 400) assert.equal(typeof (answer.body as { message?: unknown }).message, 'string', label);
        }),
        { numRuns: RUNS_PER_INPUT },
      );
    }
    assert.deepEqual(app.serverErrors(), []);
  });
});
