/**
 * Socket errors of a connection to a server that is down or out of reach. In this process they
 * come from the database driver (pg): the server makes no other connections on a request's path,
 * and Redis failures are caught where Redis is used (its callers fall back to the database).
 */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * PostgreSQL's own codes for "not now": connection exceptions (class 08), the server shutting
 * down or starting (57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now), and
 * too many connections (53300).
 */
const POSTGRES_CODES = /^(08...|57P0[123]|53300)$/;

/**
 * What pg says of a connection that broke or could not be made or taken from the pool in time
 * (the pool's connection timeout, `connectTimeoutMS`).
 */
const POSTGRES_MESSAGES = [
  /^Connection terminated/, // unexpectedly, or due to connection timeout
  /^timeout exceeded when trying to connect$/,
  /is not queryable$/, // a client that broke before, or was closed
];

/**
 * Whether `error` says the database is unreachable (down, restarting, out of reach, out of
 * connections), as opposed to a failed statement: the server answers such a request 503 with
 * Retry-After rather than 500 (docs/deployment.md "Outages"). Looks at the error and at the
 * driver's error TypeORM wraps in a `QueryFailedError` (`driverError`); not at a `cause` (a failed
 * `fetch` to a witness carries its socket error there, and is no database outage). SQLite is a file: none
 * of its errors is an outage (`SQLITE_BUSY` is retried by the unit of work, and stays a 500 when it
 * persists).
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  for (let current = error, depth = 0; current !== null && typeof current === 'object' && depth < 2; depth++) {
    const { code, message, driverError } = current as { code?: unknown; message?: unknown; driverError?: unknown };
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || POSTGRES_CODES.test(code))) return true;
    if (typeof message === 'string' && POSTGRES_MESSAGES.some((pattern) => pattern.test(message))) return true;
    current = driverError;
  }
  return false;
}
