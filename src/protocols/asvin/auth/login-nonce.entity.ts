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
