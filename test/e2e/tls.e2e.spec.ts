import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, type TestApp } from '#test/support/harness.js';
import { bearSslFingerprint, certificateSha1 } from '#test/support/field-sdks.js';
import { exchange, targetOf } from '#test/support/raw-http.js';
import { writeTestCertificate, type TestCertificate } from '#test/support/test-certificates.js';

/** The fingerprint keys of `GET {tools}/fingerprints` and the components they name. */
const PINNED = { oauth: 'auth', vc: 'vc', bc: 'bc', ipfs: 'ipfs' } as const;

/** `GET {base}/fingerprints` over TLS or not, without checking the certificate (as the ESP8266 sketch calls it). */
async function fingerprints(toolsUrl: string): Promise<Record<string, string>> {
  const target = targetOf(toolsUrl);
  const answer = await exchange(target, `GET ${new URL(toolsUrl).pathname.replace(/\/$/, '')}/fingerprints HTTP/1.1\r\nHost: x\r\n\r\n`);
  assert.equal(answer.status, 200, answer.head);
  assert.match(answer.header('content-type') ?? '', /^application\/json/);
  return JSON.parse(answer.body.toString('utf8')) as Record<string, string>;
}

/** The DER of the certificate the listener of `baseUrl` presents, read off a real handshake. */
async function presented(baseUrl: string): Promise<Buffer> {
  let der: Buffer | undefined;
  const path = `${new URL(baseUrl).pathname.replace(/\/$/, '')}/healthz`;
  const answer = await exchange(targetOf(baseUrl), `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`, { onCertificate: (d) => (der = d) });
  assert.equal(answer.status, 200, `${baseUrl}: ${answer.head}`);
  return der!;
}

describe('listeners that serve TLS themselves (https:// base URLs)', () => {
  let dir: string;
  let app: TestApp;
  let shared: TestCertificate;
  let own: TestCertificate;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'firmledger-tls-'));
    shared = await writeTestCertificate(dir, 'shared');
    own = await writeTestCertificate(dir, 'ipfs');
    app = await startTestApp(
      { TLS_CERT_FILE: shared.certFile, TLS_KEY_FILE: shared.keyFile, IPFS_TLS_CERT_FILE: own.certFile, IPFS_TLS_KEY_FILE: own.keyFile },
      {
        // Authentication and version controller share one TLS listener under two prefixes.
        AUTH_URL: 'https://127.0.0.1:{port0}/gate',
        VC_URL: 'https://127.0.0.1:{port0}/fleet',
        BC_URL: 'https://127.0.0.1:{port2}',
        IPFS_URL: 'https://127.0.0.1:{port4}',
        TOOLS_URL: 'https://127.0.0.1:{port5}',
      },
    );
  });
  after(async () => {
    await app?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('presents the shared certificate, or the component’s own, and answers over it', async () => {
    for (const component of ['auth', 'vc', 'bc', 'tools'] as const) {
      assert.equal(new X509Certificate(await presented(app.urls[component])).fingerprint, shared.sha1Fingerprint, component);
    }
    assert.equal(new X509Certificate(await presented(app.urls.ipfs)).fingerprint, own.sha1Fingerprint);
    assert.notEqual(own.sha1Fingerprint, shared.sha1Fingerprint);
  });

  it('answers GET {tools}/fingerprints without a token with the SHA-1 of what each URL presents, as the ESP8266 pins it', async () => {
    const answer = await fingerprints(app.urls.tools);
    assert.deepEqual(Object.keys(answer), ['oauth', 'vc', 'bc', 'ipfs']);
    for (const [key, component] of Object.entries(PINNED)) {
      // BearSSL's setFingerprint must take the text, and its bytes must be the SHA-1 of the certificate the listener sends.
      const pinned = bearSslFingerprint(answer[key]);
      assert.ok(pinned, `${key}: setFingerprint takes ${JSON.stringify(answer[key])}`);
      assert.ok(pinned.equals(certificateSha1(await presented(app.urls[component]))), `${key} pins ${component}'s certificate`);
      assert.match(answer[key], /^[0-9A-F]{2}(:[0-9A-F]{2}){19}$/);
    }
    assert.equal(answer.ipfs, own.sha1Fingerprint);
    assert.equal(answer.vc, shared.sha1Fingerprint);
  });

  it('does not speak plain HTTP on a TLS listener', async () => {
    const plain = { ...targetOf(app.urls.bc), tls: false };
    await assert.rejects(exchange(plain, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'));
  });
});

describe('behind a TLS-terminating proxy (http:// base URLs and the proxy’s certificate files)', () => {
  let dir: string;
  let app: TestApp;
  let all: TestCertificate;
  let bc: TestCertificate;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'firmledger-proxy-'));
    all = await writeTestCertificate(dir, 'proxy-all');
    bc = await writeTestCertificate(dir, 'proxy-bc');
    app = await startTestApp({ TLS_CERT_FILE: all.certFile, BC_TLS_CERT_FILE: bc.certFile });
  });
  after(async () => {
    await app?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves plain HTTP and reports the fingerprints of the named certificate files', async () => {
    assert.ok(app.urls.tools.startsWith('http://'));
    assert.deepEqual(await fingerprints(app.urls.tools), {
      oauth: all.sha1Fingerprint,
      vc: all.sha1Fingerprint,
      bc: bc.sha1Fingerprint,
      ipfs: all.sha1Fingerprint,
    });
  });
});

describe('without any certificate', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('answers "" for every fingerprint (devices that pin cannot connect; the server says so at start)', async () => {
    assert.deepEqual(await fingerprints(app.urls.tools), { oauth: '', vc: '', bc: '', ipfs: '' });
  });
});
