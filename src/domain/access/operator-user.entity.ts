import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { epochMs } from '#src/platform/database/columns.js';
import type { OperatorRole } from './operator-role.js';

/** An operator account of the console: a username, an Argon2id password hash and a role. */
@Entity('operator_user')
export class OperatorUser {
  @PrimaryGeneratedColumn()
  id: number;

  /** 1 to 64 of `A-Z a-z 0-9 . _ @ -`, unique, compared as written. */
  @Column({ type: 'varchar', length: 64, unique: true })
  username: string;

  /** PHC string of the password (Argon2id). */
  @Column({ name: 'password_hash', type: 'varchar', length: 255 })
  passwordHash: string;

  @Column({ type: 'varchar', length: 16 })
  role: OperatorRole;

  /** When it was disabled; its sessions end at once and it cannot sign in. */
  @Column({ name: 'disabled_at', type: 'bigint', nullable: true, transformer: epochMs })
  disabledAt: number | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;
}

/**
 * A console session: the SHA-256 of the random token in the session cookie, never the token.
 * It ends when idle longer than `OPERATOR_SESSION_IDLE_SECONDS`, at `expiresAt`, at sign-out,
 * and when its user is disabled or changes password.
 */
@Entity('operator_session')
export class OperatorSession {
  /** Lower-case hex SHA-256 of the cookie's token. */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;

  /** Last request seen, epoch ms (written at most once a minute). */
  @Column({ name: 'last_seen_at', type: 'bigint', transformer: epochMs })
  lastSeenAt: number;

  /** Absolute end, epoch ms. */
  @Column({ name: 'expires_at', type: 'bigint', transformer: epochMs })
  expiresAt: number;
}
