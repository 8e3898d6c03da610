import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { normalizePrefix, planListeners } from './listener-plan.js';

const url = (text: string) => new URL(text);

describe(planListeners.name, () => {
  it('gives each default URL (docs/decisions.md §2) its own listener, in order', () => {
    const listeners = planListeners({
      auth: url('http://0.0.0.0:3001'),
      vc: url('http://0.0.0.0:3002'),
      bc: url('http://0.0.0.0:3003'),
      operator: url('http://127.0.0.1:3004'),
    });
    assert.deepEqual(listeners, [
      { key: '0.0.0.0:3001', host: '0.0.0.0', port: 3001, mounts: [{ component: 'auth', prefix: '' }] },
      { key: '0.0.0.0:3002', host: '0.0.0.0', port: 3002, mounts: [{ component: 'vc', prefix: '' }] },
      { key: '0.0.0.0:3003', host: '0.0.0.0', port: 3003, mounts: [{ component: 'bc', prefix: '' }] },
      { key: '127.0.0.1:3004', host: '127.0.0.1', port: 3004, mounts: [{ component: 'operator', prefix: '' }] },
    ]);
  });

  it('puts components that share host and port on one listener with several mounts', () => {
    const listeners = planListeners({
      auth: url('http://0.0.0.0:3000/auth'),
      vc: url('http://0.0.0.0:3000/vc/'),
      bc: url('http://0.0.0.0:3000/'),
      operator: url('http://127.0.0.1:3004'),
    });
    assert.equal(listeners.length, 2);
    assert.deepEqual(listeners[0], {
      key: '0.0.0.0:3000',
      host: '0.0.0.0',
      port: 3000,
      mounts: [
        { component: 'auth', prefix: '/auth' },
        { component: 'vc', prefix: '/vc' },
        { component: 'bc', prefix: '' },
      ],
    });
    assert.deepEqual(listeners[1].mounts, [{ component: 'operator', prefix: '' }]);
  });

  it('groups non-adjacent components on the same host:port, ordered by first appearance', () => {
    const listeners = planListeners({
      auth: url('http://127.0.0.1:4000/a'),
      vc: url('http://127.0.0.1:4001'),
      bc: url('http://127.0.0.1:4000/b'),
    });
    assert.deepEqual(
      listeners.map((l) => [l.key, l.mounts.map((m) => `${m.component}${m.prefix}`)]),
      [
        ['127.0.0.1:4000', ['auth/a', 'bc/b']],
        ['127.0.0.1:4001', ['vc']],
      ],
    );
  });

  it('keeps the same port on different hosts apart', () => {
    const listeners = planListeners({ auth: url('http://127.0.0.1:3000'), vc: url('http://127.0.0.2:3000') });
    assert.deepEqual(
      listeners.map((l) => l.key),
      ['127.0.0.1:3000', '127.0.0.2:3000'],
    );
  });

  it('strips the brackets of an IPv6 host', () => {
    const [listener] = planListeners({ auth: url('http://[::1]:3001/auth/') });
    assert.equal(listener.host, '::1');
    assert.equal(listener.port, 3001);
    assert.deepEqual(listener.mounts, [{ component: 'auth', prefix: '/auth' }]);
  });

  it('shares one listener between IPv6 URLs with the same host and port', () => {
    const listeners = planListeners({ auth: url('http://[::]:3000/auth'), vc: url('http://[::]:3000/vc') });
    assert.equal(listeners.length, 1);
    assert.equal(listeners[0].host, '::');
    assert.equal(listeners[0].port, 3000);
    assert.equal(listeners[0].mounts.length, 2);
  });

  it('reads the port as a number', () => {
    const [listener] = planListeners({ vc: url('http://localhost:8080/') });
    assert.strictEqual(listener.port, 8080);
  });

  it('keeps an explicit port 80 (URL writes it as the empty default port)', () => {
    const [listener] = planListeners({ auth: url('http://0.0.0.0:80/auth') });
    assert.strictEqual(listener.port, 80);
  });

  it('plans nothing for no URLs', () => {
    assert.deepEqual(planListeners({}), []);
  });
});

describe(normalizePrefix.name, () => {
  for (const [pathname, prefix] of [
    ['', ''],
    ['/', ''],
    ['//', ''],
    ['/fw', '/fw'],
    ['/fw/', '/fw'],
    ['/fw///', '/fw'],
    ['fw', '/fw'],
    ['fw/', '/fw'],
    ['/api/v1', '/api/v1'],
    ['/api/v1/', '/api/v1'],
  ] as const) {
    it(`${JSON.stringify(pathname)} → ${JSON.stringify(prefix)}`, () => {
      assert.equal(normalizePrefix(pathname), prefix);
    });
  }
});

describe(`${planListeners.name} with TLS`, () => {
  const pem = {
    cert: '-----BEGIN CERTIFICATE-----\nA\n-----END CERTIFICATE-----\n',
    key: 'KEY',
    sha1Fingerprint: 'AB',
    file: { path: '/c', variable: 'TLS_CERT_FILE' },
  };

  it('gives an https:// listener the certificate and key of its first component; http:// listeners none', () => {
    const listeners = planListeners(
      { auth: url('https://0.0.0.0/a'), vc: url('https://0.0.0.0:443/v'), operator: url('http://127.0.0.1:3004') },
      { auth: pem, vc: pem, operator: { ...pem, key: undefined } },
    );
    assert.deepEqual(
      listeners.map((l) => [l.key, l.tls, l.mounts.map((m) => m.component)]),
      [
        ['0.0.0.0:443', { cert: pem.cert, key: 'KEY' }, ['auth', 'vc']],
        ['127.0.0.1:3004', undefined, ['operator']],
      ],
    );
  });

  it('refuses an https:// URL without a loaded key', () => {
    assert.throws(
      () => planListeners({ ipfs: url('https://0.0.0.0:8443') }, {}),
      /ipfs: https:\/\/ base URL without a loaded certificate and key/,
    );
  });
});
