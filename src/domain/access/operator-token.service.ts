import { Injectable, NotFoundException } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { Clock } from '#src/platform/common/clock.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import type { OperatorPrincipal } from './operator-principal.js';
import type { OperatorRole } from './operator-role.js';
import type { OperatorToken } from './operator-token.entity.js';
import { OperatorTokenRepository } from './operator-token.repository.js';

/** Every operator token starts with this, so a leaked one is easy to recognise (and to scan for). */
export const OPERATOR_TOKEN_PREFIX = 'flo_';

/** An operator token as listed: never the token itself. */
export interface OperatorTokenView {
  id: number;
  name: string;
  /** The token's first characters, e.g. `flo_3xTq`. */
  hint: string;
  /** `admin` (everything) or `viewer` (reads only). */
  role: OperatorRole;
  revoked: boolean;
  /** ISO 8601, UTC. */
  createdAt: string;
}

/** A new operator token: the only time the token is shown. */
export interface CreatedOperatorToken extends OperatorTokenView {
  token: string;
}

export type { OperatorPrincipal };

/**
 * Operator tokens (docs/decisions.md §9): 32 random bytes, shown once, stored only as their SHA-256.
 * A plain digest suffices because the token is random, not a password; lookups go by digest.
 */
@Injectable()
export class OperatorTokenService {
  constructor(
    private readonly tokens: OperatorTokenRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  /** Creates a token for `name` (who holds it) with a role (`admin` unless told otherwise). */
  async create(name: string, role: OperatorRole = 'admin'): Promise<CreatedOperatorToken> {
    const token = OPERATOR_TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const created = await this.unitOfWork.transaction((manager) =>
      this.tokens.insert(manager, {
        name,
        tokenHash: digest(token),
        tokenHint: token.slice(0, OPERATOR_TOKEN_PREFIX.length + 4),
        role,
        revokedAt: null,
        createdAt: this.clock.now(),
      }),
    );
    return { ...toView(created), token };
  }

  async list(): Promise<OperatorTokenView[]> {
    return (await this.tokens.list()).map(toView);
  }

  /**
   * Revokes a token: requests bearing it are refused from now on. Revoking twice is a no-op.
   * @throws NotFoundException when there is no token with this id.
   */
  async revoke(id: number): Promise<OperatorTokenView> {
    const token = await this.tokens.find(id);
    if (!token) throw new NotFoundException(`Operator token ${id} not found`);
    if (token.revokedAt !== null) return toView(token);
    const at = this.clock.now();
    await this.unitOfWork.write((manager) => this.tokens.revoke(manager, id, at));
    return toView({ ...token, revokedAt: at });
  }

  /** The principal of a presented token; `null` when unknown, revoked or malformed. */
  async verify(token: string): Promise<OperatorPrincipal | null> {
    if (!token.startsWith(OPERATOR_TOKEN_PREFIX) || token.length > 128) return null;
    const found = await this.tokens.findByHash(digest(token));
    return found && found.revokedAt === null ? { kind: 'token', id: found.id, name: found.name, role: found.role } : null;
  }
}

function digest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function toView(token: OperatorToken): OperatorTokenView {
  return {
    id: token.id,
    name: token.name,
    hint: token.tokenHint,
    role: token.role,
    revoked: token.revokedAt !== null,
    createdAt: new Date(token.createdAt).toISOString(),
  };
}
