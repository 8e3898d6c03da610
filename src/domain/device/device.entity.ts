import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { epochMs } from '#src/platform/database/columns.js';

/** A registered device of a tenant; `mac` is canonical and unique per tenant (docs/decisions.md §6). */
@Entity('device')
export class Device {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'tenant_id', type: 'integer' })
  tenantId: number;

  @Column({ type: 'varchar', length: 23 })
  mac: string;

  @Column({ type: 'varchar', length: 128 })
  name: string;

  @Column({ name: 'firmware_version', type: 'varchar', length: 64 })
  firmwareVersion: string;

  /** The key the device registered with; its type is the device's `dType`. */
  @Column({ name: 'device_key_id', type: 'integer' })
  deviceKeyId: number;

  @Column({ name: 'device_type', type: 'varchar', length: 64 })
  deviceType: string;

  @Column({ name: 'last_seen_at', type: 'bigint', nullable: true, transformer: epochMs })
  lastSeenAt: number | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;
}

/** A device as far as reporting its firmware version needs it: the id and what it ran so far. */
export type DeviceVersion = Pick<Device, 'id' | 'firmwareVersion'>;
