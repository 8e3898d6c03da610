import { createServer } from 'node:net';

/**
 * Source addresses for simulated devices.
 *
 * The login rate limit counts per client IP and device key (docs/decisions.md §4). Real devices each
 * have their own IP; simulated ones on one machine would all share one and be limited to
 * `LOGIN_RATE_LIMIT` logins per window together. When the server is on this machine, every
 * address in 127.0.0.0/8 reaches it (on Linux), so each device connects from its own
 * loopback address and is its own client IP, as in the field.
 */

/**
 * Whether a URL host is reached over IPv4 loopback, so a 127.x.y.z source address works:
 * `localhost` (and `*.localhost`), 127.0.0.0/8, and `0.0.0.0` (which connects to this host).
 * IPv6 `::1` is not: Linux has only that one IPv6 loopback address.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '0.0.0.0') return true;
  const m = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return m !== null && m.slice(1).every((octet) => Number(octet) <= 255);
}

/**
 * The loopback source address of simulated device `index` (0-based): 127.0.0.2, 127.0.0.3, …,
 * 127.0.0.254, 127.0.1.1, … (last octet 1..254, never .0 or .255; 127.0.0.1 is left to
 * everything else). Distinct for the first 16 646 143 devices, then repeats.
 */
export function loopbackSourceAddress(index: number): string {
  const slot = (index + 1) % (254 * 256 * 256);
  const last = (slot % 254) + 1;
  const rest = Math.floor(slot / 254);
  return `127.${Math.floor(rest / 256) % 256}.${rest % 256}.${last}`;
}

/**
 * Whether this machine lets a socket use a loopback address other than 127.0.0.1 (Linux: yes;
 * macOS: only with configured aliases). Never throws.
 */
export function canBindLoopbackAliases(): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ host: loopbackSourceAddress(0), port: 0 }, () => probe.close(() => resolve(true)));
  });
}
