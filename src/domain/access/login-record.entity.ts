import { Column, Entity, PrimaryColumn } from 'typeorm';
import { epochMs } from '#src/platform/database/columns.js';

/** An accepted login `(device key, timestamp)` of a single-device key: a second one is a replay (docs/decisions.md §4). */
@Entity('login_nonce')
export class LoginNonce {
  @PrimaryColumn({ name: 'device_key_id', type: 'integer' })
  deviceKeyId: number;

  /** The login's Unix timestamp, seconds. */
  @PrimaryColumn({ type: 'bigint', transformer: epochMs })
  timestamp: number;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;
}

/** A fixed-window counter: failed logins per client IP and device key, sign-ins, … (docs/decisions.md §4). */
@Entity('login_rate')
export class LoginRate {
  @PrimaryColumn({ type: 'varchar', length: 320 })
  key: string;

  @Column({ type: 'integer' })
  hits: number;

  /** When the window resets, epoch milliseconds. */
  @Column({ name: 'resets_at', type: 'bigint', transformer: epochMs })
  resetsAt: number;
}
