import type { ComponentName } from '#src/config/app-config.js';

/** A component mounted on a listener under a path prefix ('' for the root). */
export interface Mount {
  component: ComponentName;
  prefix: string;
}

/** One socket the process listens on, and the components it serves (CONTRACT.md §2). */
export interface Listener {
  /** `host:port`, unique per listener. */
  key: string;
  host: string;
  port: number;
  mounts: Mount[];
}

/**
 * Groups component base URLs into listeners: URLs that share host and port share one listener.
 * @param urls base URL of each component.
 * @returns listeners in the order their first component appears in `urls`.
 */
export function planListeners(urls: Partial<Record<ComponentName, URL>>): Listener[] {
  const listeners = new Map<string, Listener>();
  for (const [component, url] of Object.entries(urls) as [ComponentName, URL][]) {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // `URL` reports the scheme's default port (80 for http:) as ''.
    const port = url.port === '' ? 80 : Number(url.port);
    const key = `${host}:${port}`;
    const listener = listeners.get(key) ?? { key, host, port, mounts: [] };
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
