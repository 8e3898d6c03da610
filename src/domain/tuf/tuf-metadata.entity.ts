import { Column, Entity, PrimaryColumn } from 'typeorm';
import { epochMs } from '#src/platform/database/columns.js';

/**
 * One signed TUF metadata file of a tenant's repository for one device type: `root` (every
 * version is kept: clients walk them), `targets`, `snapshot`, `timestamp` (the newest is served).
 */
@Entity('tuf_metadata')
export class TufMetadata {
  @PrimaryColumn({ name: 'tenant_id', type: 'integer' })
  tenantId: number;

  @PrimaryColumn({ name: 'device_type', type: 'varchar', length: 64 })
  deviceType: string;

  /** `root`, `targets`, `snapshot` or `timestamp`. */
  @PrimaryColumn({ type: 'varchar', length: 16 })
  role: string;

  @PrimaryColumn({ type: 'integer' })
  version: number;

  /** The metadata file as served (JSON text, signed). */
  @Column({ type: 'text' })
  body: string;

  /** When it expires, epoch milliseconds. */
  @Column({ name: 'expires_at', type: 'bigint', transformer: epochMs })
  expiresAt: number;
}
