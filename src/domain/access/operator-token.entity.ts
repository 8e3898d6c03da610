import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { epochMs } from '#src/platform/database/columns.js';
import type { OperatorRole } from './operator-role.js';

/**
 * An operator token: the bearer credential of the operator API (docs/decisions.md §9). Only its
 * SHA-256 digest is stored; the token itself is shown once, when it is created.
 */
@Entity('operator_token')
export class OperatorToken {
  @PrimaryGeneratedColumn()
  id: number;

  /** Who or what holds it, e.g. `ci-pipeline`. */
  @Column({ type: 'varchar', length: 128 })
  name: string;

  /** Lower-case hex SHA-256 of the token. */
  @Column({ name: 'token_hash', type: 'varchar', length: 64, unique: true })
  tokenHash: string;

  /** The token's first characters, enough to tell tokens apart in a list. */
  @Column({ name: 'token_hint', type: 'varchar', length: 16 })
  tokenHint: string;

  /** `admin` (everything) or `viewer` (reads only); tokens made before roles existed are `admin`. */
  @Column({ type: 'varchar', length: 16, default: 'admin' })
  role: OperatorRole;

  @Column({ name: 'revoked_at', type: 'bigint', nullable: true, transformer: epochMs })
  revokedAt: number | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;
}
