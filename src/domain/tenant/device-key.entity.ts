import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { epochMs } from '#src/platform/database/columns.js';

/** A device key: shared by many devices of one type; revocable (docs/decisions.md §5). */
@Entity('device_key')
export class DeviceKey {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'tenant_id', type: 'integer' })
  tenantId: number;

  /** The `device_key` devices send at login. */
  @Column({ type: 'varchar', length: 128, unique: true })
  key: string;

  /** `dType` of devices registered with this key, e.g. `ESP32`. */
  @Column({ name: 'device_type', type: 'varchar', length: 64 })
  deviceType: string;

  /**
   * The key belongs to one device: a `(device key, timestamp)` is accepted once. Keys shared by
   * many devices (the default) accept byte-identical logins (docs/decisions.md §4).
   */
  @Column({ name: 'single_device', type: 'boolean', default: false })
  singleDevice: boolean;

  /**
   * Devices that authenticate with this key as their Mender tenant token and are not known yet are
   * accepted at once instead of waiting, pending, for an operator (docs/decisions.md §13).
   */
  @Column({ name: 'auto_accept', type: 'boolean', default: false })
  autoAccept: boolean;

  /**
   * The key is a hawkBit DDI gateway token: `Authorization: GatewayToken <key>` admits any DDI device
   * of the tenant (docs/decisions.md §12). Off unless the key is created or flagged as one.
   */
  @Column({ name: 'ddi_gateway', type: 'boolean', default: false })
  ddiGateway: boolean;

  @Column({ name: 'revoked_at', type: 'bigint', nullable: true, transformer: epochMs })
  revokedAt: number | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;
}
