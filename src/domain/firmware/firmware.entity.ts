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

  /**
   * The name of the file it was published from (`fw-1.2.0.swu`): the artifact's file name for
   * hawkBit DDI devices (docs/decisions.md §12); `null` for firmware published without one.
   */
  @Column({ type: 'varchar', length: 255, nullable: true })
  filename: string | null;

  /** Lowercase hex SHA-1 of the binary (DDI clients check it); `null` until first needed for firmware published before it was kept. */
  @Column({ type: 'varchar', length: 40, nullable: true })
  sha1: string | null;

  /**
   * What the header of a Mender artifact says (JSON of `MenderArtifactInfo`), for firmware
   * published from one (docs/decisions.md §13); `null` for any other binary.
   */
  @Column({ name: 'mender_artifact', type: 'text', nullable: true })
  menderArtifact: string | null;

  /**
   * Marked by an operator as a rollback target (docs/decisions.md §10.4): a rollout's rollback
   * policy may name it, and the rollback rollout offers it even to devices on a newer version.
   */
  @Column({ name: 'rollback_target', type: 'boolean', default: false })
  rollbackTarget: boolean;
}
