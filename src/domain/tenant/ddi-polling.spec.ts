import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatPollingSleep, parsePollingSleep } from './ddi-polling.js';

describe(parsePollingSleep.name, () => {
  it('reads HH:MM:SS from one second to a second under a day, and formats it back', () => {
    for (const [text, seconds] of [
      ['00:00:01', 1],
      ['00:05:00', 300],
      ['12:00:00', 43_200],
      ['23:59:59', 86_399],
    ] as const) {
      assert.equal(parsePollingSleep(text), seconds);
      assert.equal(formatPollingSleep(seconds), text);
    }
  });

  it('refuses 00:00:00 (SWUpdate reads it as 45 s), a day or more, and what is not HH:MM:SS', () => {
    for (const text of ['00:00:00', '24:00:00', '99:59:59', '0:05:00', '00:60:00', '00:00:60', '300', '00:05', ' 00:05:00']) {
      assert.equal(parsePollingSleep(text), null, text);
    }
  });
});
