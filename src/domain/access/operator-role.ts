/**
 * Roles of operators, console users and operator tokens alike: `admin` may do everything,
 * `viewer` may only read.
 */
export const OPERATOR_ROLES = ['admin', 'viewer'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

/** Whether a text is one of {@link OPERATOR_ROLES}. */
export function isOperatorRole(text: unknown): text is OperatorRole {
  return typeof text === 'string' && (OPERATOR_ROLES as readonly string[]).includes(text);
}

/** 403 text of a change a viewer asked for. */
export const VIEWER_REFUSED = 'Viewers may only read: this change needs the admin role';

/**
 * Methods that change nothing (RFC 9110 §9.2.1). Every change of the operator API is a POST, so
 * a viewer may use exactly these.
 */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a request with this method may change state (needs the admin role, and a same-origin check for cookies). */
export function isChange(method: string): boolean {
  return !SAFE_METHODS.has(method.toUpperCase());
}

/** Whether `role` may make changes. */
export function mayChange(role: OperatorRole): boolean {
  return role === 'admin';
}
