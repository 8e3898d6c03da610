import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalMac } from '#src/platform/common/mac.js';
import { retryAfterSeconds } from './device-client.js';
import { endpoint, segment } from './http-transport.js';
import { simulatedMacs } from './macs.js';
import { isLoopbackHost, loopbackSourceAddress } from './source-address.js';
import { emptyFailures, formatSummary, type SimulateSummary } from './summary.js';

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
