import { X509Certificate } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generate } from 'selfsigned';

/** A self-signed certificate and its key, generated for one test run and written as PEM files. */
export interface TestCertificate {
  certFile: string;
  keyFile: string;
  /** PEM texts. */
  cert: string;
  key: string;
  /** SHA-1 of the certificate's DER as node:crypto prints it (`AB:CD:…`), computed independently of the server. */
  sha1Fingerprint: string;
}

/**
 * Generates a self-signed RSA 2048 certificate for `127.0.0.1` and `localhost` (what the ESP
 * SDKs' TLS stacks handle) and writes `<name>.crt` and `<name>.key` into `dir`. Nothing is
 * committed: every run makes its own keys.
 */
export async function writeTestCertificate(dir: string, name: string, commonName = 'localhost'): Promise<TestCertificate> {
  const pems = await generate([{ name: 'commonName', value: commonName }], {
    keyType: 'rsa',
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  await writeFile(certFile, pems.cert);
  await writeFile(keyFile, pems.private, { mode: 0o600 });
  return { certFile, keyFile, cert: pems.cert, key: pems.private, sha1Fingerprint: new X509Certificate(pems.cert).fingerprint };
}
