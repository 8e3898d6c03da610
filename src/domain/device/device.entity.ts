import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { epochMs } from '#src/platform/database/columns.js';

/** The device protocols a device may speak (docs/decisions.md §11). */
export const DEVICE_PROTOCOLS = ['asvin', 'ddi', 'mender'] as const;
export type DeviceProtocol = (typeof DEVICE_PROTOCOLS)[number];

/**
 * A device of a tenant, named by its identifier, unique per tenant (docs/decisions.md §11): the
 * canonical mac of an asvin device (§6), the controller id of a hawkBit DDI device, the mac or
 * identity digest of a Mender device (§13). The column
 * keeps the name `mac`.
 */
@Entity('device')
export class Device {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'tenant_id', type: 'integer' })
  tenantId: number;

  /** The device's identifier: a canonical mac or a controller id (up to 256 characters). */
  @Column({ type: 'varchar', length: 256 })
  mac: string;

  /**
   * Its name: the one an operator gave (1 to 128 characters), else its identifier (up to 256,
   * docs/decisions.md §11).
   */
  @Column({ type: 'varchar', length: 256 })
  name: string;

  @Column({ name: 'firmware_version', type: 'varchar', length: 64 })
  firmwareVersion: string;

  /**
   * The key the device registered with (its type is the device's `dType`); `null` for a device an
   * operator created, which authenticates with its own target token.
   */
  @Column({ name: 'device_key_id', type: 'integer', nullable: true })
  deviceKeyId: number | null;

  @Column({ name: 'device_type', type: 'varchar', length: 64 })
  deviceType: string;

  @Column({ name: 'last_seen_at', type: 'bigint', nullable: true, transformer: epochMs })
  lastSeenAt: number | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;

  /**
   * The device protocol it speaks: `asvin` (registered through the version controller), `ddi`
   * (hawkBit) or `mender` (an accepted Mender identity, docs/decisions.md §13).
   */
  @Column({ type: 'varchar', length: 16, default: 'asvin' })
  protocol: DeviceProtocol;

  /** Lowercase hex SHA-256 of its target token (DDI `Authorization: TargetToken`), `null` when it has none. */
  @Column({ name: 'target_token_hash', type: 'varchar', length: 64, nullable: true })
  targetTokenHash: string | null;

  /** JSON object of the attributes it reported (DDI `configData`), `null` before it reported any. */
  @Column({ type: 'text', nullable: true })
  attributes: string | null;
}

/** A device as far as reporting its firmware version needs it: the id and what it ran so far. */
export type DeviceVersion = Pick<Device, 'id' | 'firmwareVersion'>;

/** A label an operator set on a device (docs/decisions.md §10.3): `key=value`, or a plain word (value `''`). */
@Entity('device_label')
export class DeviceLabel {
  @PrimaryColumn({ name: 'device_id', type: 'integer' })
  deviceId: number;

  @PrimaryColumn({ type: 'varchar', length: 64 })
  key: string;

  @Column({ type: 'varchar', length: 64 })
  value: string;
}
