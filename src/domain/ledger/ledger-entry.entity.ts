import { Column, Entity, PrimaryColumn } from 'typeorm';
import { epochMs } from '#src/platform/database/columns.js';

/**
 * One entry of the append-only, hash-chained ledger (docs/decisions.md §7).
 * `hash` = SHA-256 over `prevHash` and the canonical encoding of the entry's other fields.
 */
@Entity('ledger_entry')
export class LedgerEntry {
  /** 1, 2, 3…: position in the chain. */
  @PrimaryColumn({ type: 'integer' })
  seq: number;

  @Column({ name: 'tenant_id', type: 'integer' })
  tenantId: number;

  /** What changed, e.g. `device.registered`. */
  @Column({ type: 'varchar', length: 64 })
  type: string;

  /** What it changed, e.g. `device:AC:67:B2:01:02:03` or `firmware:7`. */
  @Column({ type: 'varchar', length: 320 })
  subject: string;

  /** Canonical JSON (RFC 8785) of the new state of the subject. */
  @Column({ type: 'text' })
  payload: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;

  /** Who made the change (`user:alice`, `token:3:ci`, `cli:root`); `null` when nobody operated it. Hashed when set. */
  @Column({ type: 'varchar', length: 200, nullable: true })
  actor: string | null;

  @Column({ name: 'prev_hash', type: 'varchar', length: 64 })
  prevHash: string;

  @Column({ type: 'varchar', length: 64 })
  hash: string;
}
