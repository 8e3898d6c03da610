import { resolve } from 'node:path';
import { COMPONENTS, URL_VARIABLES, type ComponentName } from './components.js';
import { ConfigError } from './config-values.js';

/** A PEM file named by an environment variable. */
export interface NamedFile {
  /** Absolute path. */
  path: string;
  /** The variable that named it, for error messages (`VC_TLS_CERT_FILE` or `TLS_CERT_FILE`). */
  variable: string;
}

/** The certificate (and, for a listener serving TLS itself, the private key) of one component. */
export interface TlsFiles {
  /** PEM certificate, the server's own first, then any intermediates. */
  cert?: NamedFile;
  /** PEM private key of that certificate; needed only when the component's base URL is `https://`. */
  key?: NamedFile;
}

/** A component's certificate as read at start. */
export interface LoadedCertificate {
  /** The PEM text of the certificate file (chain). */
  cert: string;
  /** The PEM private key, when the listener serves TLS itself. */
  key?: string;
  /**
   * SHA-1 of the DER of the first certificate (the one a TLS server presents first), as
   * uppercase hex pairs separated by colons (`AB:CD:…`, 59 characters): the form the ESP8266
   * sketch's `setFingerprint` parses.
   */
  sha1Fingerprint: string;
  /** Where it came from. */
  file: NamedFile;
}
/** The TLS variables' prefix of a component: `VC_` for `VC_URL`. */
const tlsPrefix = (component: ComponentName): string => URL_VARIABLES[component].replace(/URL$/, '');

/**
 * Resolves each component's certificate and key files: `<COMPONENT>_TLS_CERT_FILE` /
 * `<COMPONENT>_TLS_KEY_FILE`, else the shared `TLS_CERT_FILE` / `TLS_KEY_FILE`.
 * @throws ConfigError for an `https://` base URL without both files; for a component's own key
 *   beside an `http://` base URL (the listener would not use it); for a key without its
 *   certificate; for components sharing one `https://` listener with different files, or one
 *   listener with both schemes.
 */
export function tlsFiles(urls: Record<ComponentName, URL>, get: (name: string) => string | undefined): Record<ComponentName, TlsFiles> {
  const file = (variable: string): NamedFile | undefined => {
    const path = get(variable);
    return path === undefined ? undefined : { path: resolve(path), variable };
  };
  const shared = { cert: file('TLS_CERT_FILE'), key: file('TLS_KEY_FILE') };
  if (shared.key && !shared.cert) throw new ConfigError('TLS_KEY_FILE is set without TLS_CERT_FILE');
  const result = {} as Record<ComponentName, TlsFiles>;
  for (const component of COMPONENTS) {
    const prefix = tlsPrefix(component);
    const own = { cert: file(`${prefix}TLS_CERT_FILE`), key: file(`${prefix}TLS_KEY_FILE`) };
    const urlVariable = URL_VARIABLES[component];
    if (own.key && !own.cert) throw new ConfigError(`${prefix}TLS_KEY_FILE is set without ${prefix}TLS_CERT_FILE`);
    const secure = urls[component].protocol === 'https:';
    if (own.key && !secure) {
      throw new ConfigError(
        `${prefix}TLS_KEY_FILE is set but ${urlVariable} is http://: use an https:// ${urlVariable} for the listener to serve TLS`,
      );
    }
    const files: TlsFiles = own.cert ? own : shared;
    if (secure && !(files.cert && files.key)) {
      throw new ConfigError(
        `${urlVariable} is https://: set ${prefix}TLS_CERT_FILE and ${prefix}TLS_KEY_FILE, or TLS_CERT_FILE and TLS_KEY_FILE (PEM files)`,
      );
    }
    result[component] = secure ? files : { cert: files.cert };
  }
  // One listener, one TLS configuration: components sharing host and port must agree.
  const byListener = new Map<string, ComponentName>();
  for (const component of COMPONENTS) {
    const url = urls[component];
    const key = `${url.hostname}:${listenerPort(url)}`;
    const first = byListener.get(key);
    if (first === undefined) {
      byListener.set(key, component);
      continue;
    }
    const [a, b] = [URL_VARIABLES[first], URL_VARIABLES[component]];
    if (urls[first].protocol !== url.protocol) {
      throw new ConfigError(`${a} and ${b} share ${key} (one listener) but not the scheme: make both http:// or both https://`);
    }
    if (url.protocol === 'https:' && result[first].cert?.path !== result[component].cert?.path) {
      throw new ConfigError(
        `${a} and ${b} share ${key} (one listener) but name different certificates (${result[first].cert?.variable}, ` +
          `${result[component].cert?.variable}): give them one`,
      );
    }
  }
  return result;
}

/** The port a base URL listens on; `URL` reports the scheme's default (80, 443) as ''. */
export function listenerPort(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}
