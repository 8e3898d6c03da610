import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { ConfigError } from './config-values.js';
import { loadConfig } from './app-config.js';
import { loadCertificates } from './certificates.js';

/** SHA-1 of the DER between the first BEGIN/END CERTIFICATE lines, hex pairs with colons: computed here, not by the code under test. */
function sha1OfFirstCertificate(pem: string): string {
  const base64 = /-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/.exec(pem)![1].replace(/\s+/g, '');
  const hex = createHash('sha1').update(Buffer.from(base64, 'base64')).digest('hex').toUpperCase();
  return hex.match(/../g)!.join(':');
}

describe(loadCertificates.name, () => {
  let dir: string;
  const pems: { cert: string; key: string }[] = [];
  const file = (name: string) => join(dir, name);

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'firmledger-certs-'));
    for (const name of ['one', 'two']) {
      const generated = await generate([{ name: 'commonName', value: `${name}.test` }], { keyType: 'ec', algorithm: 'sha256' });
      pems.push({ cert: generated.cert, key: generated.private });
      await writeFile(file(`${name}.crt`), generated.cert);
      await writeFile(file(`${name}.key`), generated.private);
    }
    // A chain file: the server's certificate first, then an intermediate.
    await writeFile(file('chain.crt'), `${pems[0].cert}\n${pems[1].cert}`);
    await writeFile(file('garbage.crt'), 'not a certificate');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('fills nothing without certificate files', () => {
    assert.deepEqual(loadCertificates(loadConfig({})).certificates, {});
  });

  it('reads the served pair and gives the SHA-1 fingerprint as uppercase hex pairs with colons', () => {
    const config = loadCertificates(
      loadConfig({ VC_URL: 'https://127.0.0.1:8443', TLS_CERT_FILE: file('one.crt'), TLS_KEY_FILE: file('one.key') }),
    );
    const vc = config.certificates.vc!;
    assert.equal(vc.cert, pems[0].cert);
    assert.equal(vc.key, pems[0].key);
    assert.equal(vc.sha1Fingerprint, sha1OfFirstCertificate(pems[0].cert));
    assert.match(vc.sha1Fingerprint, /^[0-9A-F]{2}(:[0-9A-F]{2}){19}$/);
    assert.equal(vc.file.variable, 'TLS_CERT_FILE');
    // The shared certificate is also what http:// components present behind a proxy (no key there).
    assert.equal(config.certificates.auth?.sha1Fingerprint, vc.sha1Fingerprint);
    assert.equal(config.certificates.auth?.key, undefined);
  });

  it('fingerprints the first certificate of a chain file (the one a server presents first)', () => {
    const config = loadCertificates(loadConfig({ BC_TLS_CERT_FILE: file('chain.crt') }));
    assert.equal(config.certificates.bc?.sha1Fingerprint, new X509Certificate(pems[0].cert).fingerprint);
    assert.notEqual(config.certificates.bc?.sha1Fingerprint, new X509Certificate(pems[1].cert).fingerprint);
  });

  const refusals: [string, () => Record<string, string>, RegExp][] = [
    [
      'a certificate file that does not exist',
      () => ({ TOOLS_TLS_CERT_FILE: file('absent.crt') }),
      /^TOOLS_TLS_CERT_FILE: cannot read .*absent\.crt \(ENOENT\)$/,
    ],
    [
      'a file without a PEM certificate',
      () => ({ TLS_CERT_FILE: file('garbage.crt') }),
      /^TLS_CERT_FILE: .*garbage\.crt holds no PEM certificate/,
    ],
    [
      'a key file without a PEM key',
      () => ({ VC_URL: 'https://127.0.0.1:8443', VC_TLS_CERT_FILE: file('one.crt'), VC_TLS_KEY_FILE: file('garbage.crt') }),
      /^VC_TLS_KEY_FILE: .*garbage\.crt holds no unencrypted PEM private key/,
    ],
    [
      'the key of another certificate',
      () => ({ IPFS_URL: 'https://127.0.0.1:8443', IPFS_TLS_CERT_FILE: file('one.crt'), IPFS_TLS_KEY_FILE: file('two.key') }),
      /^IPFS_TLS_KEY_FILE \(.*two\.key\) is not the private key of IPFS_TLS_CERT_FILE/,
    ],
  ];
  for (const [what, env, message] of refusals) {
    it(`refuses ${what}, naming the variable`, () => {
      assert.throws(
        () => loadCertificates(loadConfig(env())),
        (error: unknown) => error instanceof ConfigError && message.test(error.message),
      );
    });
  }
});
