import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Typed, validated configuration, read once at start from the environment.
 * Every variable, its default and the CONTRACT.md section it comes from is listed in
 * {@link ENVIRONMENT}; the README's table is the same list.
 */
export interface AppConfig {
  /** Base URLs of the four components (CONTRACT.md §2). */
  urls: Record<ComponentName, URL>;
  /** Directory for the SQLite database, the JWT secret and firmware artifacts. */
  dataDir: string;
  /** SQLite database file (absolute path); used when {@link databaseUrl} is unset. */
  databasePath: string;
  /** `postgres://` connection URL: the data layer runs on PostgreSQL instead of SQLite. */
  databaseUrl: string | undefined;
  /** `redis://` URL: login rate-limit counters and the replay store live in Redis (CONTRACT.md §4). */
  redisUrl: string | undefined;
  /**
   * Namespace of every Redis key, `firmledger:`. Not an environment variable: tests give each
   * app its own so parallel apps sharing one Redis never see each other's keys.
   */
  redisKeyPrefix: string;
  /** Node driver for SQLite (TypeORM type of the same name). */
  sqliteDriver: SqliteDriver;
  /**
   * SQLite `PRAGMA synchronous` in WAL mode: `NORMAL` survives process crashes and never corrupts
   * the database, but a power loss may drop the last commits; `FULL` syncs every commit.
   */
  sqliteSynchronous: SqliteSynchronous;
  /** HS256 secret for device tokens, as bytes (CONTRACT.md §4). */
  jwtSecret: Buffer;
  /** Device token lifetime, seconds. */
  jwtTtlSeconds: number;
  /** Largest accepted |server time - login timestamp|, seconds. */
  authMaxSkewSeconds: number;
  /** Logins allowed per client IP and device key per window. */
  loginRateLimit: number;
  /** Login rate-limit window, seconds. */
  loginRateWindowSeconds: number;
  /** Honour `X-Forwarded-For` for the client IP (fastify `trustProxy` semantics). */
  trustProxy: boolean | number | string;
  /** Nest log levels to print. */
  logLevels: LogLevel[];
  /**
   * Fallback font files for PDF report text Roboto cannot draw (CONTRACT.md §6); `undefined`
   * searches the system locations of GNU Unifont.
   */
  reportFallbackFonts: string[] | undefined;
  /**
   * Largest firmware binary accepted by an upload or `firmware publish`, bytes (CONTRACT.md §9;
   * over it: 413). Default 64 MiB.
   */
  firmwareMaxBytes: number;
  /** An operator console session ends after this long without a request, seconds. */
  operatorSessionIdleSeconds: number;
  /** An operator console session ends this long after sign-in whatever its activity, seconds. */
  operatorSessionMaxSeconds: number;
}

export type ComponentName = 'auth' | 'vc' | 'bc' | 'operator';
const SQLITE_DRIVERS = ['better-sqlite3', 'sqlite3'] as const;
export type SqliteDriver = (typeof SQLITE_DRIVERS)[number];
export const SQLITE_SYNCHRONOUS = ['NORMAL', 'FULL'] as const;
export type SqliteSynchronous = (typeof SQLITE_SYNCHRONOUS)[number];
export type LogLevel = 'fatal' | 'error' | 'warn' | 'log' | 'debug' | 'verbose';

/** Thrown when a variable is invalid; the message names the variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

interface Variable {
  name: string;
  default: string;
  description: string;
}

/** Every environment variable the server reads, with its default (README table). */
export const ENVIRONMENT: readonly Variable[] = [
  { name: 'AUTH_URL', default: 'http://0.0.0.0:3001', description: 'Base URL of the authentication component' },
  { name: 'VC_URL', default: 'http://0.0.0.0:3002', description: 'Base URL of the version controller' },
  { name: 'BC_URL', default: 'http://0.0.0.0:3003', description: 'Base URL of the blockchain lookup' },
  { name: 'OPERATOR_URL', default: 'http://127.0.0.1:3004', description: 'Base URL of the operator surface' },
  { name: 'DATA_DIR', default: './data', description: 'SQLite database, JWT secret and firmware artifacts' },
  {
    name: 'DATABASE_URL',
    default: '(unset: SQLite under DATA_DIR)',
    description: 'postgres://user:password@host:5432/db: keep the data in PostgreSQL instead',
  },
  {
    name: 'REDIS_URL',
    default: '(unset: in the database)',
    description: 'redis://host:6379/0: login rate-limit counters and the replay store in Redis',
  },
  { name: 'SQLITE_DRIVER', default: 'better-sqlite3', description: 'SQLite driver: better-sqlite3 or sqlite3 (bench/RESULTS.md)' },
  {
    name: 'SQLITE_SYNCHRONOUS',
    default: 'NORMAL',
    description: 'SQLite commit durability in WAL mode: NORMAL, or FULL to sync every commit to disk',
  },
  { name: 'JWT_SECRET', default: '(random, kept in DATA_DIR/jwt-secret)', description: 'HS256 secret for device tokens' },
  { name: 'JWT_TTL_SECONDS', default: '3600', description: 'Device token lifetime, seconds' },
  { name: 'AUTH_MAX_SKEW_SECONDS', default: '300', description: 'Accepted clock skew of a login timestamp, seconds' },
  { name: 'LOGIN_RATE_LIMIT', default: '10', description: 'Logins per client IP and device key per window' },
  { name: 'LOGIN_RATE_WINDOW_SECONDS', default: '60', description: 'Login rate-limit window, seconds' },
  { name: 'TRUST_PROXY', default: 'false', description: 'Honour X-Forwarded-For: true, a hop count, or addresses/CIDRs' },
  { name: 'LOG_LEVEL', default: 'log', description: 'Least severe level printed: error, warn, log, debug, verbose' },
  {
    name: 'REPORT_FALLBACK_FONTS',
    default: '(GNU Unifont from the system, e.g. Debian fonts-unifont)',
    description: 'Comma-separated font files for PDF report text beyond Latin, Greek and Cyrillic',
  },
  { name: 'FIRMWARE_MAX_BYTES', default: '67108864', description: 'Largest firmware binary an upload or publish accepts, bytes (64 MiB)' },
  {
    name: 'OPERATOR_SESSION_IDLE_SECONDS',
    default: '1800',
    description: 'An operator console session ends after this long without a request, seconds',
  },
  {
    name: 'OPERATOR_SESSION_MAX_SECONDS',
    default: '43200',
    description: 'An operator console session ends this long after sign-in, seconds (12 hours)',
  },
];

/** Upper bound of `FIRMWARE_MAX_BYTES`: 16 GiB, bytes. */
const MAX_FIRMWARE_MAX_BYTES = 16 * 1024 ** 3;

const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

/**
 * Reads and validates the configuration.
 * @param env the environment (default `process.env`); unset or empty variables take their default.
 * @throws ConfigError naming the first invalid variable.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const get = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const fallback = (name: string): string => ENVIRONMENT.find((v) => v.name === name)!.default;

  const urls = {
    auth: baseUrl('AUTH_URL', get('AUTH_URL') ?? fallback('AUTH_URL')),
    vc: baseUrl('VC_URL', get('VC_URL') ?? fallback('VC_URL')),
    bc: baseUrl('BC_URL', get('BC_URL') ?? fallback('BC_URL')),
    operator: baseUrl('OPERATOR_URL', get('OPERATOR_URL') ?? fallback('OPERATOR_URL')),
  };
  const dataDir = resolve(get('DATA_DIR') ?? fallback('DATA_DIR'));
  const level = get('LOG_LEVEL') ?? 'log';
  if (!LEVELS.includes(level as LogLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LEVELS.join(', ')} (got "${level}")`);
  }
  const jwtSecretText = get('JWT_SECRET');
  if (jwtSecretText !== undefined && Buffer.byteLength(jwtSecretText) < 32) {
    throw new ConfigError('JWT_SECRET must be at least 32 bytes long');
  }

  return {
    urls,
    dataDir,
    databasePath: join(dataDir, 'firmledger.sqlite'),
    databaseUrl: serviceUrl(
      'DATABASE_URL',
      get('DATABASE_URL'),
      ['postgres:', 'postgresql:'],
      'postgres://user:password@host:5432/firmledger',
    ),
    redisUrl: serviceUrl('REDIS_URL', get('REDIS_URL'), ['redis:', 'rediss:'], 'redis://127.0.0.1:6379/0'),
    redisKeyPrefix: 'firmledger:',
    sqliteDriver: oneOf('SQLITE_DRIVER', get('SQLITE_DRIVER') ?? fallback('SQLITE_DRIVER'), SQLITE_DRIVERS),
    sqliteSynchronous: oneOf(
      'SQLITE_SYNCHRONOUS',
      (get('SQLITE_SYNCHRONOUS') ?? fallback('SQLITE_SYNCHRONOUS')).toUpperCase(),
      SQLITE_SYNCHRONOUS,
    ),
    jwtSecret: jwtSecretText !== undefined ? Buffer.from(jwtSecretText, 'utf8') : Buffer.alloc(0),
    jwtTtlSeconds: integer('JWT_TTL_SECONDS', get('JWT_TTL_SECONDS') ?? '3600', 1, 31_536_000),
    authMaxSkewSeconds: integer('AUTH_MAX_SKEW_SECONDS', get('AUTH_MAX_SKEW_SECONDS') ?? '300', 1, 86_400),
    loginRateLimit: integer('LOGIN_RATE_LIMIT', get('LOGIN_RATE_LIMIT') ?? '10', 1, 1_000_000),
    loginRateWindowSeconds: integer('LOGIN_RATE_WINDOW_SECONDS', get('LOGIN_RATE_WINDOW_SECONDS') ?? '60', 1, 86_400),
    trustProxy: trustProxy(get('TRUST_PROXY') ?? 'false'),
    logLevels: LEVELS.slice(0, LEVELS.indexOf(level as LogLevel) + 1),
    reportFallbackFonts: get('REPORT_FALLBACK_FONTS')
      ?.split(',')
      .map((path) => path.trim())
      .filter((path) => path !== '')
      .map((path) => resolve(path)),
    firmwareMaxBytes: integer('FIRMWARE_MAX_BYTES', get('FIRMWARE_MAX_BYTES') ?? fallback('FIRMWARE_MAX_BYTES'), 1, MAX_FIRMWARE_MAX_BYTES),
    ...operatorSession(get),
  };
}

/**
 * Creates the data directory and, when `JWT_SECRET` is unset, loads or creates the random
 * secret kept in `DATA_DIR/jwt-secret` so tokens survive restarts (CONTRACT.md §4).
 */
export function prepareDataDir(config: AppConfig): AppConfig {
  mkdirSync(config.dataDir, { recursive: true });
  if (config.jwtSecret.length > 0) return config;
  const file = join(config.dataDir, 'jwt-secret');
  if (!existsSync(file)) {
    writeFileSync(file, randomBytes(48).toString('base64url'), { mode: 0o600, flag: 'wx' });
  }
  return { ...config, jwtSecret: Buffer.from(readFileSync(file, 'utf8').trim(), 'utf8') };
}

/** The two lifetimes of an operator console session; the idle one may not exceed the absolute one. */
function operatorSession(
  get: (name: string) => string | undefined,
): Pick<AppConfig, 'operatorSessionIdleSeconds' | 'operatorSessionMaxSeconds'> {
  const idle = integer('OPERATOR_SESSION_IDLE_SECONDS', get('OPERATOR_SESSION_IDLE_SECONDS') ?? '1800', 60, 2_592_000);
  const max = integer('OPERATOR_SESSION_MAX_SECONDS', get('OPERATOR_SESSION_MAX_SECONDS') ?? '43200', 60, 2_592_000);
  if (idle > max) throw new ConfigError(`OPERATOR_SESSION_IDLE_SECONDS (${idle}) must not exceed OPERATOR_SESSION_MAX_SECONDS (${max})`);
  return { operatorSessionIdleSeconds: idle, operatorSessionMaxSeconds: max };
}

function baseUrl(name: string, text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`${name} must be a URL such as http://0.0.0.0:3001 (got "${text}")`);
  }
  if (url.protocol !== 'http:') {
    throw new ConfigError(`${name} must use http: (terminate TLS at the reverse proxy); got "${text}"`);
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
function serviceUrl(name: string, text: string | undefined, protocols: string[], example: string): string | undefined {
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

function oneOf<T extends string>(name: string, text: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(text)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')} (got "${text}")`);
  return text as T;
}

function integer(name: string, text: string, min: number, max: number): number {
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max} (got "${text}")`);
  }
  return value;
}

function trustProxy(text: string): boolean | number | string {
  if (/^(false|0|no|off)$/i.test(text)) return false;
  if (/^(true|yes|on)$/i.test(text)) return true;
  if (/^\d+$/.test(text)) return Number(text);
  if (/^[0-9a-f.:/,\s]+$/i.test(text)) return text;
  throw new ConfigError(`TRUST_PROXY must be true, false, a hop count or a list of addresses (got "${text}")`);
}
