import type { Actor } from '#src/domain/ledger/ledger-actor.js';
import type { OperatorRole } from './operator-role.js';

/**
 * Who an operator request speaks for: a console user signed in with a session cookie, or an
 * operator token of the REST API. Both have a role.
 */
export interface OperatorPrincipal {
  kind: 'user' | 'token';
  /** The user's or the token's id. */
  id: number;
  /** Username, or the token's name. */
  name: string;
  role: OperatorRole;
}

/** The actor an operator's changes record on the ledger. */
export function principalActor(principal: OperatorPrincipal): Actor {
  return principal.kind === 'token' ? { kind: 'token', id: principal.id, name: principal.name } : { kind: 'user', name: principal.name };
}
