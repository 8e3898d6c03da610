import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalMac } from '#src/platform/common/mac.js';
import { fateOf, pollsAgain, wasOffered, type CycleOutcome } from './device-cycle.js';
import { retryAfterSeconds } from './device-client.js';
import { endpoint, segment } from './http-transport.js';
import { simulatedMacs } from './macs.js';
import { isLoopbackHost, loopbackSourceAddress } from './source-address.js';
import { anotherRound } from './simulator.js';
import { emptyFailures, formatRound, formatSummary, type SimulateSummary } from './summary.js';

describe('simulatedMacs', () => {
  it('gives device 1 the prefix followed by 00:00:01, in device order', () => {
    assert.deepEqual(simulatedMacs('02:F1:ED', 3), ['02:F1:ED:00:00:01', '02:F1:ED:00:00:02', '02:F1:ED:00:00:03']);
  });

  it('returns canonical macs (uppercase, colon-separated) for any prefix notation', () => {
    for (const prefix of ['02:f1:ed', '02-F1-ed', '02f1ED']) {
      for (const mac of simulatedMacs(prefix, 300)) {
        assert.equal(canonicalMac(mac), mac);
        assert.ok(mac.startsWith('02:F1:ED:'), mac);
      }
    }
  });

  it('carries the index across all three suffix bytes', () => {
    const macs = simulatedMacs('AA:BB:CC', 0x1_00_01);
    assert.equal(macs[0xff], 'AA:BB:CC:00:01:00');
    assert.equal(macs[0xff_ff], 'AA:BB:CC:01:00:00');
    assert.equal(macs.at(-1), 'AA:BB:CC:01:00:01');
  });

  it('gives distinct macs', () => {
    const macs = simulatedMacs('02:F1:ED', 70_000);
    assert.equal(new Set(macs).size, 70_000);
  });

  it('returns nothing for 0 devices and rejects bad prefixes and counts', () => {
    assert.deepEqual(simulatedMacs('02:F1:ED', 0), []);
    for (const prefix of ['02:F1', '02:F1:ED:00', 'zz:F1:ED', '02:F1-ED', '']) {
      assert.throws(() => simulatedMacs(prefix, 1), RangeError, prefix);
    }
    for (const count of [-1, 1.5, 0x1_00_00_00]) {
      assert.throws(() => simulatedMacs('02:F1:ED', count), RangeError, String(count));
    }
  });
});

describe('formatSummary', () => {
  const summary: SimulateSummary = {
    devices: 100,
    updated: 90,
    upToDate: 7,
    failures: { ...emptyFailures(), login: 2, verify: 1 },
    requests: 612,
    seconds: 7.5,
    requestsPerSecond: 81.6,
    failureExamples: { login: 'HTTP 401 Invalid credentials' },
    rounds: [{ round: 1, asked: 100, offered: 91, updated: 90, waiting: 7 }],
  };
  const text = formatSummary(summary);

  it('shows devices, updated, up to date and failed counts', () => {
    assert.match(text, /Devices simulated: 100\b/);
    assert.match(text, /updated: +90\b/);
    assert.match(text, /up to date: +7\b/);
    assert.match(text, /failed: +3\b/);
  });

  it('lists failed steps with their counts and first reason, and omits steps without failures', () => {
    assert.match(text, /login: +2 +\(first: HTTP 401 Invalid credentials\)/);
    assert.match(text, /verify: +1\b/);
    assert.doesNotMatch(text, /download:/);
    assert.doesNotMatch(text, /register:/);
  });

  it('shows requests, seconds and requests per second', () => {
    assert.match(text, /Requests: 612 in 7\.50 s \(81\.6 requests\/s\)/);
  });

  it('is several lines and shows notes', () => {
    assert.ok(text.split('\n').length >= 5);
    assert.match(formatSummary({ ...summary, notes: ['shared IP'] }), /^Note: shared IP$/m);
  });
});

describe('source addresses', () => {
  it('gives each device its own loopback address, never .0, .255 or 127.0.0.1', () => {
    assert.equal(loopbackSourceAddress(0), '127.0.0.2');
    const seen = new Set<string>();
    for (let i = 0; i < 70_000; i++) {
      const address = loopbackSourceAddress(i);
      assert.match(address, /^127\.\d+\.\d+\.(\d+)$/);
      const last = Number(address.split('.')[3]);
      assert.ok(last >= 1 && last <= 254, address);
      assert.notEqual(address, '127.0.0.1');
      seen.add(address);
    }
    assert.equal(seen.size, 70_000);
  });

  it('recognises IPv4 loopback hosts', () => {
    for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '0.0.0.0', 'api.localhost']) assert.ok(isLoopbackHost(host), host);
    for (const host of ['example.com', '10.0.0.1', '[::1]', '127.0.0.256', '128.0.0.1']) assert.ok(!isLoopbackHost(host), host);
  });
});

describe('request details', () => {
  it('joins base URLs with a path prefix', () => {
    assert.equal(endpoint(new URL('http://h:1/'), '/auth/login').href, 'http://h:1/auth/login');
    assert.equal(endpoint(new URL('http://h:1/vc/'), '/api/device/register').href, 'http://h:1/vc/api/device/register');
    assert.equal(
      endpoint(new URL('http://h:1/bc'), `/device/${segment('02:F1:ED:00:00:01')}`).href,
      'http://h:1/bc/device/02:F1:ED:00:00:01',
    );
    assert.equal(segment('a/b?'), 'a%2Fb%3F');
  });

  it('reads Retry-After as seconds or a date, falling back to X-RateLimit-Reset', () => {
    const nowMs = 1_763_700_000_000;
    assert.equal(retryAfterSeconds({ 'retry-after': '17' }, nowMs), 17);
    assert.equal(retryAfterSeconds({ 'retry-after': new Date(nowMs + 5000).toUTCString() }, nowMs), 5);
    assert.equal(retryAfterSeconds({ 'x-ratelimit-reset': String(nowMs / 1000 + 42) }, nowMs), 42);
    assert.equal(retryAfterSeconds({}, nowMs), undefined);
  });
});

describe('fates (--fail-rate, --fallback-rate, --silent-rate)', () => {
  const macs = simulatedMacs('02:F1:ED', 2000);
  const share = (fates: string[], fate: string) => fates.filter((f) => f === fate).length / fates.length;

  it('splits the fleet by the shares, in the order fail, fall back, silent', () => {
    const fates = macs.map((mac) => fateOf(mac, 0.1, 0.2, 0.3));
    for (const [fate, expected] of [
      ['fail', 0.1],
      ['fall-back', 0.2],
      ['silent', 0.3],
      ['ok', 0.4],
    ] as const) {
      assert.ok(Math.abs(share(fates, fate) - expected) < 0.04, `${fate}: ${share(fates, fate)}`);
    }
  });

  it('keeps the failing and falling-back devices of a run without --silent-rate: silent ones come from those that updated', () => {
    for (const mac of macs) {
      const before = fateOf(mac, 0.1, 0.2);
      const after = fateOf(mac, 0.1, 0.2, 0.3);
      if (before !== 'ok') assert.equal(after, before, mac);
      else assert.ok(after === 'ok' || after === 'silent', mac);
    }
  });

  it('gives the same fate every time, none silent at 0 and all silent at 1', () => {
    assert.deepEqual(
      macs.map((mac) => fateOf(mac, 0, 0, 0.5)),
      macs.map((mac) => fateOf(mac, 0, 0, 0.5)),
    );
    assert.ok(macs.every((mac) => fateOf(mac, 0, 0, 0) === 'ok'));
    assert.ok(macs.every((mac) => fateOf(mac, 0, 0, 1) === 'silent'));
  });
});

describe('rounds (--rounds, --poll-interval)', () => {
  const outcomes: Record<string, CycleOutcome> = {
    updated: { kind: 'updated', version: '2.0.0' },
    fellBack: { kind: 'fell-back' },
    reportedFailure: { kind: 'reported-failure' },
    silent: { kind: 'silent' },
    upToDate: { kind: 'up-to-date' },
    loginFailed: { kind: 'failed', step: 'login', reason: 'HTTP 401' },
    nextRolloutFailed: { kind: 'failed', step: 'next-rollout', reason: 'HTTP 500' },
    downloadFailed: { kind: 'failed', step: 'download', reason: 'HTTP 404' },
  };

  it('only devices told there is nothing for them now poll again', () => {
    const again = Object.entries(outcomes)
      .filter(([, outcome]) => pollsAgain(outcome))
      .map(([name]) => name);
    assert.deepEqual(again, ['upToDate']);
  });

  it('counts a device as offered when the next-rollout answer named a rollout, whatever it did then', () => {
    const offered = Object.entries(outcomes)
      .filter(([, outcome]) => wasOffered(outcome))
      .map(([name]) => name);
    assert.deepEqual(offered, ['updated', 'fellBack', 'reportedFailure', 'silent', 'downloadFailed']);
  });

  it('goes on to another round only while rounds remain and devices wait', () => {
    assert.equal(anotherRound(1, 1, 5), false);
    assert.equal(anotherRound(1, 3, 5), true);
    assert.equal(anotherRound(2, 3, 0), false);
    assert.equal(anotherRound(3, 3, 5), false);
  });

  it('prints a line per round and the rounds in the summary when there were several', () => {
    const round = { round: 2, asked: 6, offered: 2, updated: 4, waiting: 2 };
    assert.equal(formatRound(round, 10), 'round 2: 2 offered, 4/10 updated so far, 2 still waiting (6 asked)');
    const summary: SimulateSummary = {
      devices: 10,
      updated: 4,
      upToDate: 2,
      silent: 4,
      failures: emptyFailures(),
      requests: 80,
      seconds: 61,
      requestsPerSecond: 1.3,
      rounds: [{ round: 1, asked: 10, offered: 6, updated: 2, waiting: 4 }, round],
    };
    const text = formatSummary(summary);
    assert.match(text, /silent: +4\b/);
    assert.match(text, /^Rounds: 2$/m);
    assert.match(text, /^ {2}round 1: 6 offered, 2\/10 updated so far, 4 still waiting \(10 asked\)$/m);
    assert.doesNotMatch(formatSummary({ ...summary, rounds: [round] }), /Rounds:/);
  });
});
