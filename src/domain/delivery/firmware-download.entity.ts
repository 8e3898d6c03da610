import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { epochMs } from '#src/platform/database/columns.js';

/**
 * One firmware download answered with bytes (200 or 206) by the IPFS component, attributed to
 * the token's device key and, when the updater's MAC header names a registered device of the
 * tenant, to that device.
 */
@Entity('firmware_download')
export class FirmwareDownload {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'tenant_id', type: 'integer' })
  tenantId: number;

  /** The device key of the credential that asked; `null` for a device's own credential (a DDI target token). */
  @Column({ name: 'device_key_id', type: 'integer', nullable: true })
  deviceKeyId: number | null;

  /** The tenant's device the MAC header names; `null` without the header or for an unregistered mac. */
  @Column({ name: 'device_id', type: 'integer', nullable: true })
  deviceId: number | null;

  /**
   * The device's identifier: the canonical mac from the updater's `x-ESP8266-STA-MAC` /
   * `x-ESP32-STA-MAC` header, when sent, or the controller id of a DDI device (docs/decisions.md §11).
   */
  @Column({ type: 'varchar', length: 256, nullable: true })
  mac: string | null;

  @Column({ name: 'firmware_id', type: 'integer' })
  firmwareId: number;

  @Column({ type: 'varchar', length: 64 })
  cid: string;

  /** First byte sent, 0 for a whole download. */
  @Column({ name: 'range_start', type: 'bigint', transformer: epochMs })
  rangeStart: number;

  /** Last byte sent (inclusive): size - 1 for a whole download. */
  @Column({ name: 'range_end', type: 'bigint', transformer: epochMs })
  rangeEnd: number;

  /** When the download was answered, epoch milliseconds. */
  @Column({ name: 'requested_at', type: 'bigint', transformer: epochMs })
  requestedAt: number;
}
