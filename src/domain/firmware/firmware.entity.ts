import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { epochMs } from '#src/platform/database/columns.js';

/** A published firmware artifact of a tenant, for one device type (docs/decisions.md §7). */
@Entity('firmware')
export class Firmware {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'tenant_id', type: 'integer' })
  tenantId: number;

  @Column({ type: 'varchar', length: 64 })
  version: string;

  @Column({ name: 'device_type', type: 'varchar', length: 64 })
  deviceType: string;

  /** Size of the binary, bytes. */
  @Column({ type: 'bigint', transformer: epochMs })
  size: number;

  /** Lowercase hex MD5 of the binary. */
  @Column({ type: 'varchar', length: 32 })
  md5: string;

  /** Lowercase hex SHA-256 of the binary. */
  @Column({ type: 'varchar', length: 64 })
  sha256: string;

  /** CIDv0 (`Qm…`) that `ipfs add` gives the same bytes. */
  @Column({ type: 'varchar', length: 64 })
  cid: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;
}
