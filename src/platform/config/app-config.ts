import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseSigner } from '#src/platform/crypto/signed-note.js';
import { COMPONENTS, URL_VARIABLES, type ComponentName } from './components.js';
import { baseUrl, ConfigError, flag, integer, oneOf, serviceUrl, trustProxy } from './config-values.js';
import { defaultOf } from './environment.js';
import { keptJwtSecret, keptSigningKey, ledgerKeys, type LedgerKeySettings } from './key-files.js';
import { tlsFiles, type LoadedCertificate, type TlsFiles } from './tls-plan.js';

/**
 * Typed, validated configuration, read once at start from the environment.
 * Every variable, its default and the docs/decisions.md section it comes from is listed in
 * {@link ENVIRONMENT}; the README's table is the same list.
 */
export interface AppConfig extends LedgerKeySettings {
  /**
   * Base URL of every component: the three of the device interface, the IPFS download server,
   * the tools service (TLS fingerprints), the hawkBit DDI component, the Mender component and the
   * operator surface.
   */
  urls: Record<ComponentName, URL>;
  /**
   * Where each component's TLS certificate comes from: served by its listener when its base URL
   * is `https://`, or presented by a TLS-terminating proxy in front of it when it is `http://`.
   * Paths only; the files are read at start by `loadCertificates`.
   */
  tls: Record<ComponentName, TlsFiles>;
  /**
   * The certificates read from {@link tls} at start (`loadCertificates`), by component; empty
   * until then. Each carries the SHA-1 fingerprint devices pin.
   */
  certificates: Partial<Record<ComponentName, LoadedCertificate>>;
  /** Directory for the SQLite database, the JWT secret and firmware artifacts. */
  dataDir: string;
  /** SQLite database file (absolute path); used when {@link databaseUrl} is unset. */
  databasePath: string;
  /** `postgres://` connection URL: the data layer runs on PostgreSQL instead of SQLite. */
  databaseUrl: string | undefined;
  /** `redis://` URL: login rate-limit counters and the replay store live in Redis (docs/decisions.md §4). */
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
  /** HS256 secret for device tokens, as bytes (docs/decisions.md §4). */
  jwtSecret: Buffer;
  /** Device token lifetime, seconds. */
  jwtTtlSeconds: number;
  /** Largest accepted |server time - login timestamp|, seconds. */
  authMaxSkewSeconds: number;
  /** Logins allowed per client IP and device key per window. */
  loginRateLimit: number;
  /** Login rate-limit window, seconds. */
  loginRateWindowSeconds: number;
  /**
   * How long a device that reported rollout success may stay silent before the update counts as
   * failed (it never reported the target version), seconds.
   */
  rolloutConfirmationWindowSeconds: number;
  /** Honour `X-Forwarded-For` for the client IP (fastify `trustProxy` semantics). */
  trustProxy: boolean | number | string;
  /** Nest log levels to print. */
  logLevels: LogLevel[];
  /**
   * Fallback font files for PDF report text Roboto cannot draw (docs/decisions.md §6); `undefined`
   * searches the system locations of GNU Unifont.
   */
  reportFallbackFonts: string[] | undefined;
  /**
   * Largest firmware binary accepted by an upload or `firmware publish`, bytes (docs/decisions.md §9;
   * over it: 413). Default 64 MiB.
   */
  firmwareMaxBytes: number;
  /**
   * Most devices a PDF report lists (`REPORT_PDF_MAX_DEVICES`, default 200,000): a PDF takes 0.35
   * to 0.7 s per thousand devices (bench/RESULTS.md, quiet and busy machine), so a larger tenant is refused with a message that
   * names the streamed JSON and XML reports instead.
   */
  reportPdfMaxDevices: number;
  /**
   * Largest bulk device import the operator API reads, bytes (docs/decisions.md §14; over it:
   * 413). Default 256 MiB (a million CSV rows take about 60 MiB).
   */
  deviceImportMaxBytes: number;
  /**
   * Whether `GET {bc_url}/tile/entries/…` serves the ledger's entry bundles to anyone
   * (`LEDGER_PUBLIC_ENTRIES`, default false): the entries name tenants, devices, groups and
   * operators. Hash tiles are always public; operators always read the bundles.
   */
  ledgerPublicEntries: boolean;
  /**
   * Whether hot routes are served by their route shortcut (`ROUTE_SHORTCUTS`, default true); false
   * serves them through Nest's whole pipeline, with the same answers, for the benchmark to measure
   * what the shortcut buys (bench/RESULTS.md).
   */
  routeShortcuts: boolean;
  /** An operator console session ends after this long without a request, seconds. */
  operatorSessionIdleSeconds: number;
  /** An operator console session ends this long after sign-in whatever its activity, seconds. */
  operatorSessionMaxSeconds: number;
}

const SQLITE_DRIVERS = ['better-sqlite3', 'sqlite3'] as const;
export type SqliteDriver = (typeof SQLITE_DRIVERS)[number];
export const SQLITE_SYNCHRONOUS = ['NORMAL', 'FULL'] as const;
export type SqliteSynchronous = (typeof SQLITE_SYNCHRONOUS)[number];
export type LogLevel = 'fatal' | 'error' | 'warn' | 'log' | 'debug' | 'verbose';

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
  /** The variable's value, or its default as {@link ENVIRONMENT} (the README's table) gives it. */
  const setting = (name: string): string => get(name) ?? defaultOf(name);

  const urls = Object.fromEntries(
    COMPONENTS.map((component) => {
      const variable = URL_VARIABLES[component];
      return [component, baseUrl(variable, setting(variable))];
    }),
  ) as Record<ComponentName, URL>;
  const tls = tlsFiles(urls, get);
  const dataDir = resolve(setting('DATA_DIR'));
  const level = setting('LOG_LEVEL');
  if (!LEVELS.includes(level as LogLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LEVELS.join(', ')} (got "${level}")`);
  }
  const jwtSecretText = get('JWT_SECRET');
  if (jwtSecretText !== undefined && Buffer.byteLength(jwtSecretText) < 32) {
    throw new ConfigError('JWT_SECRET must be at least 32 bytes long');
  }

  return {
    urls,
    tls,
    certificates: {},
    ...ledgerKeys(get),
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
    sqliteDriver: oneOf('SQLITE_DRIVER', setting('SQLITE_DRIVER'), SQLITE_DRIVERS),
    sqliteSynchronous: oneOf('SQLITE_SYNCHRONOUS', setting('SQLITE_SYNCHRONOUS').toUpperCase(), SQLITE_SYNCHRONOUS),
    jwtSecret: jwtSecretText !== undefined ? Buffer.from(jwtSecretText, 'utf8') : Buffer.alloc(0),
    jwtTtlSeconds: integer('JWT_TTL_SECONDS', setting('JWT_TTL_SECONDS'), 1, 31_536_000),
    authMaxSkewSeconds: integer('AUTH_MAX_SKEW_SECONDS', setting('AUTH_MAX_SKEW_SECONDS'), 1, 86_400),
    loginRateLimit: integer('LOGIN_RATE_LIMIT', setting('LOGIN_RATE_LIMIT'), 1, 1_000_000),
    loginRateWindowSeconds: integer('LOGIN_RATE_WINDOW_SECONDS', setting('LOGIN_RATE_WINDOW_SECONDS'), 1, 86_400),
    rolloutConfirmationWindowSeconds: integer(
      'ROLLOUT_CONFIRMATION_WINDOW_SECONDS',
      setting('ROLLOUT_CONFIRMATION_WINDOW_SECONDS'),
      1,
      31_536_000,
    ),
    trustProxy: trustProxy(setting('TRUST_PROXY')),
    logLevels: LEVELS.slice(0, LEVELS.indexOf(level as LogLevel) + 1),
    reportFallbackFonts: get('REPORT_FALLBACK_FONTS')
      ?.split(',')
      .map((path) => path.trim())
      .filter((path) => path !== '')
      .map((path) => resolve(path)),
    firmwareMaxBytes: integer('FIRMWARE_MAX_BYTES', setting('FIRMWARE_MAX_BYTES'), 1, MAX_FIRMWARE_MAX_BYTES),
    deviceImportMaxBytes: integer('DEVICE_IMPORT_MAX_BYTES', setting('DEVICE_IMPORT_MAX_BYTES'), 1, MAX_FIRMWARE_MAX_BYTES),
    reportPdfMaxDevices: integer('REPORT_PDF_MAX_DEVICES', setting('REPORT_PDF_MAX_DEVICES'), 1, 100_000_000),
    ...operatorSession(setting),
    ledgerPublicEntries: flag('LEDGER_PUBLIC_ENTRIES', setting('LEDGER_PUBLIC_ENTRIES')),
    routeShortcuts: flag('ROUTE_SHORTCUTS', setting('ROUTE_SHORTCUTS')),
  };
}

/**
 * Creates the data directory; loads or creates the ledger's signing key when `LEDGER_SIGNING_KEY`
 * is unset ({@link keptSigningKey}); and, when `JWT_SECRET` is unset, loads or creates the random
 * secret kept in `DATA_DIR/jwt-secret` ({@link keptJwtSecret}).
 */
export function prepareDataDir(config: AppConfig): AppConfig {
  mkdirSync(config.dataDir, { recursive: true });
  if (!config.ledgerSigningKey) {
    const ledgerSigningKey = keptSigningKey(config.dataDir, config.ledgerOrigin, config.urls.bc.host);
    config = { ...config, ledgerSigningKey, ledgerOrigin: parseSigner(ledgerSigningKey).name };
  }
  return config.jwtSecret.length > 0 ? config : { ...config, jwtSecret: keptJwtSecret(config.dataDir) };
}

/** The two lifetimes of an operator console session; the idle one may not exceed the absolute one. */
function operatorSession(setting: (name: string) => string): Pick<AppConfig, 'operatorSessionIdleSeconds' | 'operatorSessionMaxSeconds'> {
  const idle = integer('OPERATOR_SESSION_IDLE_SECONDS', setting('OPERATOR_SESSION_IDLE_SECONDS'), 60, 2_592_000);
  const max = integer('OPERATOR_SESSION_MAX_SECONDS', setting('OPERATOR_SESSION_MAX_SECONDS'), 60, 2_592_000);
  if (idle > max) throw new ConfigError(`OPERATOR_SESSION_IDLE_SECONDS (${idle}) must not exceed OPERATOR_SESSION_MAX_SECONDS (${max})`);
  return { operatorSessionIdleSeconds: idle, operatorSessionMaxSeconds: max };
}
