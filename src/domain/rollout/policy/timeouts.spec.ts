import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { REACHED_FROM, RETRIED_STATES, SETTLED_STATES } from './device-states.js';
import { parseTimeouts, timeoutMessage } from './timeouts.js';

describe(parseTimeouts.name, () => {
  it('reads seconds per state; absent or null: none', () => {
    assert.deepEqual(parseTimeouts({ offered: 3600, installed: 1800 }), {
      timeouts: { offered: 3600, downloading: null, installed: 1800 },
    });
    assert.deepEqual(parseTimeouts({}), { timeouts: { offered: null, downloading: null, installed: null } });
    assert.deepEqual(parseTimeouts({ downloading: null, installed: 604800, offered: 60 }), {
      timeouts: { offered: 60, downloading: null, installed: 604800 },
    });
  });

  it('refuses what is not a timeout, naming the field', () => {
    const cases: [unknown, string][] = [
      [[], 'timeouts'],
      ['1h', 'timeouts'],
      [{ offered: 59 }, 'timeouts.offered'],
      [{ downloading: 604801 }, 'timeouts.downloading'],
      [{ installed: 90.5 }, 'timeouts.installed'],
      [{ installed: '1h' }, 'timeouts.installed'],
      [{ confirmed: 600 }, 'timeouts.confirmed'],
    ];
    for (const [input, field] of cases) {
      const parsed = parseTimeouts(input);
      assert.ok('error' in parsed, JSON.stringify(input));
      assert.equal(parsed.error.field, field, JSON.stringify(input));
      assert.ok(parsed.error.message.startsWith(field), parsed.error.message);
    }
  });

  it('names the timeout in the device’s message', () => {
    assert.equal(timeoutMessage('offered', 3600), 'timed out: offered for more than 3600 s (timeouts.offered)');
  });
});

describe('timed_out', () => {
  it('is reached from offered, downloading and installed; it settles the device, and a retry sends it back', () => {
    assert.deepEqual(REACHED_FROM.timed_out, ['offered', 'downloading', 'installed']);
    assert.ok(SETTLED_STATES.includes('timed_out'));
    assert.ok(RETRIED_STATES.includes('timed_out'));
    for (const to of ['confirmed', 'failed', 'fell_back', 'installed'] as const) assert.ok(!REACHED_FROM[to].includes('timed_out'), to);
  });
});
