import { listenerPort, type LoadedCertificate } from '#src/platform/config/tls-plan.js';
import type { ComponentName } from '#src/platform/config/components.js';

/** A component mounted on a listener under a path prefix ('' for the root). */
export interface Mount {
  component: ComponentName;
  prefix: string;
}

/** One socket the process listens on, and the components it serves (docs/decisions.md §2). */
export interface Listener {
  /** `host:port`, unique per listener. */
  key: string;
  host: string;
  port: number;
  mounts: Mount[];
  /** Certificate chain and key when the listener serves TLS itself (its base URLs are `https://`). */
  tls?: { cert: string; key: string };
}

/**
 * Groups component base URLs into listeners: URLs that share host and port share one listener.
 * The configuration makes sure they share the scheme and, for `https://`, the certificate.
 * @param urls base URL of each component.
 * @param certificates the loaded certificates; an `https://` listener serves its first component's.
 * @returns listeners in the order their first component appears in `urls`.
 * @throws Error for an `https://` URL without a certificate and key (the configuration prevents it).
 */
export function planListeners(
  urls: Partial<Record<ComponentName, URL>>,
  certificates: Partial<Record<ComponentName, LoadedCertificate>> = {},
): Listener[] {
  const listeners = new Map<string, Listener>();
  for (const [component, url] of Object.entries(urls) as [ComponentName, URL][]) {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const port = listenerPort(url);
    const key = `${host}:${port}`;
    let listener = listeners.get(key);
    if (!listener) {
      listener = { key, host, port, mounts: [] };
      if (url.protocol === 'https:') {
        const { cert, key: privateKey } = certificates[component] ?? {};
        if (!cert || !privateKey) throw new Error(`${component}: https:// base URL without a loaded certificate and key`);
        listener.tls = { cert, key: privateKey };
      }
    }
    listener.mounts.push({ component, prefix: normalizePrefix(url.pathname) });
    listeners.set(key, listener);
  }
  return [...listeners.values()];
}

/** `/`, `` → ``; `/fw/` → `/fw`. */
export function normalizePrefix(pathname: string): string {
  const trimmed = pathname.replace(/\/+$/, '');
  return trimmed === '' ? '' : trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}
