import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createFileOnce } from '#src/platform/common/create-once.js';
import { ED25519, generateSigner, NoteFormatError, parseSigner, parseVerifier } from '#src/platform/crypto/signed-note.js';
import { join, resolve } from 'node:path';

/**
 * Typed, validated configuration, read once at start from the environment.
 * Every variable, its default and the docs/decisions.md section it comes from is listed in
 * {@link ENVIRONMENT}; the README's table is the same list.
 */
export interface AppConfig {
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
   * Largest bulk device import the operator API reads, bytes (docs/decisions.md §14; over it:
   * 413). Default 256 MiB (a million CSV rows take about 60 MiB).
   */
  deviceImportMaxBytes: number;
  /**
   * The ledger's checkpoint signing key, a signed-note signer key (`PRIVATE+KEY+<origin>+<id>+…`,
   * Ed25519): `LEDGER_SIGNING_KEY`, or the one kept in `DATA_DIR/ledger-signing-key` (filled in
   * by {@link prepareDataDir}; empty until then). A secret: never logged.
   */
  ledgerSigningKey: string;
  /**
   * The log's origin line: `LEDGER_ORIGIN`, else the given key's name, else (until
   * {@link prepareDataDir} sets the kept key's name) `undefined`. A key created without
   * `LEDGER_ORIGIN` is named `firmledger/<host:port of BC_URL>`.
   */
  ledgerOrigin: string | undefined;
  /** Verifier keys (`<name>+<id>+<key>`, type 4) of the witnesses whose cosignatures count (`LEDGER_WITNESS_KEYS`). */
  ledgerWitnessKeys: string[];
  /** Cosignatures of {@link ledgerWitnessKeys} a checkpoint needs before it is published (`LEDGER_WITNESS_QUORUM`, default 0). */
  ledgerWitnessQuorum: number;
  /**
   * C2SP tlog-witness submission prefixes (`LEDGER_WITNESS_URLS`): the server sends each new
   * checkpoint to `<url>/add-checkpoint` and keeps the cosignatures of {@link ledgerWitnessKeys} it gets back.
   */
  ledgerWitnessUrls: URL[];
  /**
   * Whether `GET {bc_url}/tile/entries/…` serves the ledger's entry bundles to anyone
   * (`LEDGER_PUBLIC_ENTRIES`, default false): the entries name tenants, devices, groups and
   * operators. Hash tiles are always public; operators always read the bundles.
   */
  ledgerPublicEntries: boolean;
  /** An operator console session ends after this long without a request, seconds. */
  operatorSessionIdleSeconds: number;
  /** An operator console session ends this long after sign-in whatever its activity, seconds. */
  operatorSessionMaxSeconds: number;
}

/**
 * The components, each on its own base URL; `ipfs` and `tools` are the field's further two
 * device-facing ones, `ddi` speaks Eclipse hawkBit's Direct Device Integration API (docs/decisions.md §12),
 * `mender` the Mender device API (docs/decisions.md §13).
 */
export const COMPONENTS = ['auth', 'vc', 'bc', 'operator', 'ipfs', 'tools', 'ddi', 'mender'] as const;
export type ComponentName = (typeof COMPONENTS)[number];

/** The base-URL variable of each component. */
export const URL_VARIABLES: Readonly<Record<ComponentName, string>> = {
  auth: 'AUTH_URL',
  vc: 'VC_URL',
  bc: 'BC_URL',
  operator: 'OPERATOR_URL',
  ipfs: 'IPFS_URL',
  tools: 'TOOLS_URL',
  ddi: 'DDI_URL',
  mender: 'MENDER_URL',
};

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
  { name: 'IPFS_URL', default: 'http://0.0.0.0:3005', description: 'Base URL of the IPFS download server (firmware by CID)' },
  {
    name: 'TOOLS_URL',
    default: 'http://0.0.0.0:3006',
    description: 'Base URL of the tools service (TLS fingerprints for ESP8266 devices)',
  },
  {
    name: 'DDI_URL',
    default: 'http://0.0.0.0:3007',
    description: 'Base URL of the hawkBit DDI component (SWUpdate, rauc-hawkbit-updater, Zephyr and other hawkBit clients)',
  },
  {
    name: 'MENDER_URL',
    default: 'http://0.0.0.0:3008',
    description: 'Base URL of the Mender component (the Mender client’s ServerURL: device authentication, inventory, deployments)',
  },
  { name: 'OPERATOR_URL', default: 'http://127.0.0.1:3004', description: 'Base URL of the operator surface' },
  {
    name: 'TLS_CERT_FILE',
    default: '(unset)',
    description: 'PEM certificate of every component without its own <COMPONENT>_TLS_CERT_FILE (served on https:// base URLs)',
  },
  { name: 'TLS_KEY_FILE', default: '(unset)', description: 'PEM private key of TLS_CERT_FILE' },
  {
    name: '<COMPONENT>_TLS_CERT_FILE',
    default: '(unset)',
    description:
      'AUTH_, VC_, BC_, IPFS_, TOOLS_, DDI_, MENDER_, OPERATOR_: that component’s certificate; with an http:// base URL, the one your TLS proxy presents',
  },
  { name: '<COMPONENT>_TLS_KEY_FILE', default: '(unset)', description: 'PEM private key of <COMPONENT>_TLS_CERT_FILE' },
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
  {
    name: 'LEDGER_SIGNING_KEY',
    default: '(created, kept in DATA_DIR/ledger-signing-key)',
    description: 'Ed25519 signed-note key (PRIVATE+KEY+<origin>+<id>+<key>) that signs the ledger checkpoints',
  },
  {
    name: 'LEDGER_ORIGIN',
    default: 'firmledger/<host:port of BC_URL>',
    description: 'Origin line of the checkpoints: the name of the key created when none is kept or given',
  },
  {
    name: 'LEDGER_WITNESS_KEYS',
    default: '(none)',
    description: 'Comma-separated witness verifier keys (<name>+<id>+<key>) whose checkpoint cosignatures are accepted',
  },
  { name: 'LEDGER_WITNESS_QUORUM', default: '0', description: 'Cosignatures of those witnesses a checkpoint needs before it is published' },
  {
    name: 'LEDGER_WITNESS_URLS',
    default: '(none)',
    description: 'Comma-separated C2SP tlog-witness URLs: each new checkpoint is sent to <url>/add-checkpoint for a cosignature',
  },
  {
    name: 'LEDGER_PUBLIC_ENTRIES',
    default: 'false',
    description: 'true: serve the ledger entry bundles (GET {bc_url}/tile/entries/…) to anyone, not only to operators',
  },
  { name: 'AUTH_MAX_SKEW_SECONDS', default: '300', description: 'Accepted clock skew of a login timestamp, seconds' },
  { name: 'LOGIN_RATE_LIMIT', default: '10', description: 'Logins per client IP and device key per window' },
  { name: 'LOGIN_RATE_WINDOW_SECONDS', default: '60', description: 'Login rate-limit window, seconds' },
  {
    name: 'ROLLOUT_CONFIRMATION_WINDOW_SECONDS',
    default: '3600',
    description: 'After a success report, how long a device may stay silent before its update counts as failed, seconds',
  },
  { name: 'TRUST_PROXY', default: 'false', description: 'Honour X-Forwarded-For: true, a hop count, or addresses/CIDRs' },
  { name: 'LOG_LEVEL', default: 'log', description: 'Least severe level printed: error, warn, log, debug, verbose' },
  {
    name: 'REPORT_FALLBACK_FONTS',
    default: '(GNU Unifont from the system, e.g. Debian fonts-unifont)',
    description: 'Comma-separated font files for PDF report text beyond Latin, Greek and Cyrillic',
  },
  { name: 'FIRMWARE_MAX_BYTES', default: '67108864', description: 'Largest firmware binary an upload or publish accepts, bytes (64 MiB)' },
  {
    name: 'DEVICE_IMPORT_MAX_BYTES',
    default: '268435456',
    description: 'Largest CSV or NDJSON body a bulk device import through the operator API accepts, bytes (256 MiB)',
  },
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

/** The default of a variable in {@link ENVIRONMENT}: a value to parse, for those that have one. */
function defaultOf(name: string): string {
  return ENVIRONMENT.find((v) => v.name === name)!.default;
}

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
    ...operatorSession(setting),
    ledgerPublicEntries: flag('LEDGER_PUBLIC_ENTRIES', setting('LEDGER_PUBLIC_ENTRIES')),
  };
}

/**
 * Creates the data directory; loads or creates the ledger's signing key when `LEDGER_SIGNING_KEY`
 * is unset ({@link keptSigningKey}); and, when `JWT_SECRET` is unset, loads or creates the random
 * secret kept in `DATA_DIR/jwt-secret` so tokens survive restarts (docs/decisions.md §4).
 */
export function prepareDataDir(config: AppConfig): AppConfig {
  mkdirSync(config.dataDir, { recursive: true });
  if (!config.ledgerSigningKey) {
    const ledgerSigningKey = keptSigningKey(config);
    config = { ...config, ledgerSigningKey, ledgerOrigin: parseSigner(ledgerSigningKey).name };
  }
  if (config.jwtSecret.length > 0) return config;
  const file = join(config.dataDir, 'jwt-secret');
  if (!existsSync(file)) createFileOnce(file, randomBytes(48).toString('base64url'));
  return { ...config, jwtSecret: Buffer.from(readFileSync(file, 'utf8').trim(), 'utf8') };
}

/** The ledger's signing key, origin and witnesses, checked: a malformed key stops the start. */
function ledgerKeys(
  get: (name: string) => string | undefined,
): Pick<AppConfig, 'ledgerSigningKey' | 'ledgerOrigin' | 'ledgerWitnessKeys' | 'ledgerWitnessQuorum' | 'ledgerWitnessUrls'> {
  const origin = get('LEDGER_ORIGIN');
  if (origin !== undefined && /[\s+]/u.test(origin)) throw new ConfigError('LEDGER_ORIGIN must not contain spaces or "+"');
  const secret = get('LEDGER_SIGNING_KEY');
  let signingKey = '';
  if (secret !== undefined) {
    try {
      const signer = parseSigner(secret);
      if (signer.type !== ED25519) throw new NoteFormatError('type must be 1 (Ed25519)');
      if (origin !== undefined && signer.name !== origin) throw new NoteFormatError(`its name is not LEDGER_ORIGIN ("${origin}")`);
      signingKey = signer.secret;
    } catch (error) {
      // the key is a secret: the message names what is wrong, never the value
      throw new ConfigError(`LEDGER_SIGNING_KEY must be an Ed25519 signed-note signer key: ${(error as Error).message}`);
    }
  }
  const witnessKeys = (get('LEDGER_WITNESS_KEYS') ?? '').split(/[\s,]+/).filter((key) => key !== '');
  for (const key of witnessKeys) {
    try {
      if (parseVerifier(key).type !== 0x04) throw new NoteFormatError('type must be 4 (Ed25519 cosignature)');
    } catch (error) {
      throw new ConfigError(`LEDGER_WITNESS_KEYS: "${key}" is not a witness verifier key: ${(error as Error).message}`);
    }
  }
  const witnessUrls = (get('LEDGER_WITNESS_URLS') ?? '')
    .split(/[\s,]+/)
    .filter((url) => url !== '')
    .map((text) => {
      const url = baseUrl('LEDGER_WITNESS_URLS', text);
      url.pathname = url.pathname.replace(/\/+$/, '');
      return url;
    });
  if (witnessUrls.length > 0 && witnessKeys.length === 0) {
    throw new ConfigError('LEDGER_WITNESS_URLS needs LEDGER_WITNESS_KEYS: only cosignatures of known witness keys are kept');
  }
  return {
    ledgerWitnessUrls: witnessUrls,
    ledgerSigningKey: signingKey,
    ledgerOrigin: origin ?? (signingKey ? parseSigner(signingKey).name : undefined),
    ledgerWitnessKeys: witnessKeys,
    ledgerWitnessQuorum: integer(
      'LEDGER_WITNESS_QUORUM',
      get('LEDGER_WITNESS_QUORUM') ?? defaultOf('LEDGER_WITNESS_QUORUM'),
      0,
      witnessKeys.length,
    ),
  };
}

/**
 * The ledger's signing key kept in `DATA_DIR/ledger-signing-key`, created on the first start
 * (named by `LEDGER_ORIGIN` or its default). Instances sharing a data directory share it; one
 * created by another process at the same moment is read, not overwritten.
 * @throws ConfigError when the kept key is not one, or `LEDGER_ORIGIN` names another origin.
 */
function keptSigningKey(config: AppConfig): string {
  const file = join(config.dataDir, 'ledger-signing-key');
  const origin = config.ledgerOrigin ?? `firmledger/${config.urls.bc.host}`;
  if (!existsSync(file)) createFileOnce(file, `${generateSigner(origin, ED25519).secret}\n`);
  let signer;
  try {
    signer = parseSigner(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`${file} is not a signed-note signer key: ${(error as Error).message}`);
  }
  if (config.ledgerOrigin !== undefined && signer.name !== config.ledgerOrigin) {
    throw new ConfigError(`LEDGER_ORIGIN "${config.ledgerOrigin}" is not the name of the key kept in ${file} ("${signer.name}")`);
  }
  return signer.secret;
}

/** The two lifetimes of an operator console session; the idle one may not exceed the absolute one. */
function operatorSession(setting: (name: string) => string): Pick<AppConfig, 'operatorSessionIdleSeconds' | 'operatorSessionMaxSeconds'> {
  const idle = integer('OPERATOR_SESSION_IDLE_SECONDS', setting('OPERATOR_SESSION_IDLE_SECONDS'), 60, 2_592_000);
  const max = integer('OPERATOR_SESSION_MAX_SECONDS', setting('OPERATOR_SESSION_MAX_SECONDS'), 60, 2_592_000);
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
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an http:// or https:// URL (got "${text}")`);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new ConfigError(`${name} must not carry a query, fragment or credentials (got "${text}")`);
  }
  return url;
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
function tlsFiles(urls: Record<ComponentName, URL>, get: (name: string) => string | undefined): Record<ComponentName, TlsFiles> {
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

function flag(name: string, text: string): boolean {
  if (/^(false|0|no|off)$/i.test(text)) return false;
  if (/^(true|1|yes|on)$/i.test(text)) return true;
  throw new ConfigError(`${name} must be true or false (got "${text}")`);
}

function trustProxy(text: string): boolean | number | string {
  if (/^(false|0|no|off)$/i.test(text)) return false;
  if (/^(true|yes|on)$/i.test(text)) return true;
  if (/^\d+$/.test(text)) return Number(text);
  if (/^[0-9a-f.:/,\s]+$/i.test(text)) return text;
  throw new ConfigError(`TRUST_PROXY must be true, false, a hop count or a list of addresses (got "${text}")`);
}
