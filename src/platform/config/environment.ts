/** One environment variable: its name, default (a value to parse; '' for none) and meaning. */
export interface Variable {
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
    name: 'ROUTE_SHORTCUTS',
    default: 'true',
    description: 'false: serve next rollout through the full request pipeline only, for comparison (npm run bench); same answers',
  },
  {
    name: 'REPORT_FALLBACK_FONTS',
    default: '(GNU Unifont from the system, e.g. Debian fonts-unifont)',
    description: 'Comma-separated font files for PDF report text beyond Latin, Greek and Cyrillic',
  },
  {
    name: 'DEVICE_IMPORT_MAX_BYTES',
    default: '268435456',
    description: 'Largest CSV or NDJSON body a bulk device import through the operator API accepts, bytes (256 MiB)',
  },
  {
    name: 'REPORT_PDF_MAX_DEVICES',
    default: '200000',
    description: 'Most devices a PDF report lists; a larger tenant is answered 422 naming the JSON and XML reports',
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

/** The default of a variable in {@link ENVIRONMENT}: a value to parse, for those that have one. */
export function defaultOf(name: string): string {
  return ENVIRONMENT.find((v) => v.name === name)!.default;
}
