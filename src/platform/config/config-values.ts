/** Parsers of one environment variable's value: each throws a {@link ConfigError} naming the variable. */

/** Thrown when a variable is invalid; the message names the variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function baseUrl(name: string, text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`${name} must be a URL such as http://0.0.0.0:3001 (got "${text}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an http:// or https:// URL (got "${text}")`);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new ConfigError(`${name} must not carry a query, fragment or credentials (got "${text}")`);
  }
  return url;
}

/**
 * Checks the URL of a database or Redis server; `undefined` stays unset. The value is never
 * echoed in the error, since it may carry a password.
 */
export function serviceUrl(name: string, text: string | undefined, protocols: string[], example: string): string | undefined {
  if (text === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || !protocols.includes(url.protocol) || (url.hostname === '' && !url.searchParams.has('host'))) {
    throw new ConfigError(`${name} must be a URL such as ${example} (${protocols.join(' or ')})`);
  }
  return text;
}

export function oneOf<T extends string>(name: string, text: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(text)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')} (got "${text}")`);
  return text as T;
}

export function integer(name: string, text: string, min: number, max: number): number {
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max} (got "${text}")`);
  }
  return value;
}

export function flag(name: string, text: string): boolean {
  if (/^(false|0|no|off)$/i.test(text)) return false;
  if (/^(true|1|yes|on)$/i.test(text)) return true;
  throw new ConfigError(`${name} must be true or false (got "${text}")`);
}

export function trustProxy(text: string): boolean | number | string {
  if (/^(false|0|no|off)$/i.test(text)) return false;
  if (/^(true|yes|on)$/i.test(text)) return true;
  if (/^\d+$/.test(text)) return Number(text);
  if (/^[0-9a-f.:/,\s]+$/i.test(text)) return text;
  throw new ConfigError(`TRUST_PROXY must be true, false, a hop count or a list of addresses (got "${text}")`);
}
