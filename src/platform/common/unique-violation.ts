/** Whether a database error is a unique-constraint violation (SQLite or PostgreSQL). */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown; driverError?: { code?: unknown }; message?: unknown } | null;
  const code = e?.driverError?.code ?? e?.code;
  if (code === '23505') return true;
  const message = typeof e?.message === 'string' ? e.message : '';
  // sqlite3 reports SQLITE_CONSTRAINT, better-sqlite3 the extended SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY.
  return typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT') && /UNIQUE|PRIMARY KEY/.test(message);
}
