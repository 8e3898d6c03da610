import type { ComponentName } from '#src/platform/config/components.js';
import type { Listener } from './listener-plan.js';
import { normalizePrefix } from './listener-plan.js';

/** A base URL as people write it: scheme, host, port, path prefix, no trailing slash (`http://0.0.0.0:3002/fw`). */
export function baseUrlText(url: URL): string {
  return `${url.protocol}//${url.host}${normalizePrefix(url.pathname)}`;
}

/**
 * Rewrites the internal marker under which a component's routes are declared in Nest (`/__vc`,
 * see `componentMarker`) to the component's base URL, so that Nest's route-mapping lines name the
 * URLs the routes answer on: `{/__vc/api/device, GET}` → `{http://0.0.0.0:3002/api/device, GET}`.
 */
export function markerToBaseUrl(urls: Partial<Record<ComponentName, URL>>): (text: string) => string {
  const bases = new Map(Object.entries(urls).map(([component, url]) => [component, baseUrlText(url)]));
  return (text) => text.replace(/\/__([a-z]+)(?![a-z])/g, (marker, component: string) => bases.get(component) ?? marker);
}

/**
 * The start-up line of one listener: the socket it listens on and the base URL of every component
 * it serves, e.g. `listening on http://0.0.0.0:3002: vc at http://0.0.0.0:3002`.
 */
export function listenerLine(
  listener: Listener,
  urls: Partial<Record<ComponentName, URL>>,
): { msg: string; components: Record<string, string> } {
  const components = Object.fromEntries(
    listener.mounts.map((mount) => {
      const url = urls[mount.component];
      return [mount.component, url ? baseUrlText(url) : mount.prefix];
    }),
  );
  const socket = `${listener.tls ? 'https' : 'http'}://${listener.host.includes(':') ? `[${listener.host}]` : listener.host}:${listener.port}`;
  const served = Object.entries(components).map(([component, url]) => `${component} at ${url}`);
  return { msg: `listening on ${socket}: ${served.join(', ')}`, components };
}
