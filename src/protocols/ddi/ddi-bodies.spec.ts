import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readJsonText } from '#src/platform/common/json-text.js';
import { ConfigDataMessages, FeedbackMessages, readConfigData, readFeedback } from './ddi-bodies.js';

/** A feedback exactly as SWUpdate 2022.12 writes it (asprintf, server_hawkbit.c), with a raw line feed in a detail. */
const SWUPDATE_FEEDBACK =
  '{ "id": 7, "time": "20261126T105143", "status": { "result": { "progress": { "cnt" : 1, "of" : 0 }, "finished": "failure" }, ' +
  '"execution": "closed", "details" : [ "Got malformed JSON: Could not find fields \'filename\', \'hashes->sha1\', or \'size\' in JSON.\n" ] } }';

/** JSON text read as the body parser reads a DDI body: raw control characters inside strings repaired. */
function repaired(text: string): unknown {
  const read = readJsonText(text, { repairControlCharacters: true });
  assert.ok('value' in read, JSON.stringify(read));
  return read.value;
}

describe(readFeedback.name, () => {
  it('reads what real clients send: numeric ids, times without a zone, cnt over of, no details', () => {
    assert.deepEqual(
      readFeedback({
        id: 7,
        time: '20261126T105143',
        status: { result: { progress: { cnt: 3, of: 1 }, finished: 'none' }, execution: 'proceeding' },
      }),
      {
        execution: 'proceeding',
        finished: 'none',
        details: [],
      },
    );
  });

  it('reads SWUpdate’s feedback with a raw line feed once the JSON parser repaired it', () => {
    assert.deepEqual(readFeedback(repaired(SWUPDATE_FEEDBACK)), {
      execution: 'closed',
      finished: 'failure',
      details: ["Got malformed JSON: Could not find fields 'filename', 'hashes->sha1', or 'size' in JSON.\n"],
    });
  });

  it('refuses what hawkBit refuses: no status, an unknown execution or result, details that are not strings', () => {
    assert.deepEqual(readFeedback({}), { error: FeedbackMessages.status });
    assert.deepEqual(readFeedback({ status: { execution: 'CLOSED', result: { finished: 'success' } } }), {
      error: FeedbackMessages.execution,
    });
    assert.deepEqual(readFeedback({ status: { execution: 'closed', result: { finished: 'ok' } } }), { error: FeedbackMessages.finished });
    assert.deepEqual(readFeedback({ status: { execution: 'closed', result: { finished: 'success' }, details: 'x' } }), {
      error: FeedbackMessages.details,
    });
  });
});

describe(readConfigData.name, () => {
  it('reads SWUpdate’s configData (no mode: merge; an empty value)', () => {
    const body = repaired(
      '{ "id": "", "time": "20261126T105300", "status": { "result": { "finished": "success" }, "execution": "closed", "details" : [ "" ] }, "data" : {  "serial": "SN-0012","hwRevision": "" } }',
    );
    assert.deepEqual(readConfigData(body), { data: { serial: 'SN-0012', hwRevision: '' }, mode: 'merge' });
  });

  it('refuses no data, values that are not strings, keys or values over 128 characters or with text no database stores, more than 100 keys, another mode', () => {
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, 'v']));
    for (const body of [
      {},
      { data: {} },
      { data: { a: 1 } },
      { data: { ['k'.repeat(129)]: 'v' } },
      { data: { a: 'v'.repeat(129) } },
      { data: { '\udc00': '' } },
      { data: { a: 'x\u0000y' } },
      { data: many },
    ]) {
      assert.deepEqual(readConfigData(body), { error: ConfigDataMessages.data });
    }
    assert.deepEqual(readConfigData({ data: { a: 'b' }, mode: 'append' }), { error: ConfigDataMessages.mode });
  });
});
