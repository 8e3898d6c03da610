import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { COMPONENTS, type ComponentName } from './components.js';
import { ConfigError } from './config-values.js';
import type { AppConfig } from './app-config.js';
import type { LoadedCertificate, NamedFile } from './tls-plan.js';

/**
 * Reads every certificate (and key) {@link AppConfig.tls} names, once at start, checks it and
 * computes the SHA-1 fingerprint devices pin. A file named by several components is read once.
 * @returns the configuration with {@link AppConfig.certificates} filled.
 * @throws ConfigError naming the variable of a file that cannot be read, holds no PEM
 *   certificate or key, or whose key does not belong to its certificate.
 */
export function loadCertificates(config: AppConfig): AppConfig {
  const read = memoize(readPem);
  const certificates: Partial<Record<ComponentName, LoadedCertificate>> = {};
  for (const component of COMPONENTS) {
    const files = config.tls[component];
    if (!files.cert) continue;
    const cert = read(files.cert);
    const parsed = parseCertificate(files.cert, cert);
    let key: string | undefined;
    if (files.key) {
      key = read(files.key);
      if (!parsed.checkPrivateKey(parseKey(files.key, key))) {
        throw new ConfigError(
          `${files.key.variable} (${files.key.path}) is not the private key of ${files.cert.variable} (${files.cert.path})`,
        );
      }
    }
    certificates[component] = { cert, key, sha1Fingerprint: parsed.fingerprint, file: files.cert };
  }
  return { ...config, certificates };
}

function readPem(file: NamedFile): string {
  try {
    return readFileSync(file.path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(`${file.variable}: cannot read ${file.path}${code ? ` (${code})` : ''}`);
  }
}

/** The first certificate of a PEM file: the one a TLS server presents first. */
function parseCertificate(file: NamedFile, pem: string): X509Certificate {
  const first = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(pem)?.[0];
  try {
    if (first) return new X509Certificate(first);
  } catch {
    // reported below
  }
  throw new ConfigError(`${file.variable}: ${file.path} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
}

function parseKey(file: NamedFile, pem: string): KeyObject {
  try {
    return createPrivateKey(pem);
  } catch {
    throw new ConfigError(`${file.variable}: ${file.path} holds no unencrypted PEM private key`);
  }
}

function memoize(readFile: (file: NamedFile) => string): (file: NamedFile) => string {
  const cache = new Map<string, string>();
  return (file) => {
    let text = cache.get(file.path);
    if (text === undefined) cache.set(file.path, (text = readFile(file)));
    return text;
  };
}
