import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { epochMs } from '#src/database/columns.js';

/** Lifecycle states of a rollout. */
export const ROLLOUT_STATUSES = ['draft', 'active', 'paused', 'finished', 'cancelled'] as const;
export type RolloutStatus = (typeof ROLLOUT_STATUSES)[number];

/** A planned firmware update for a group of devices (INTERFACE.md "Rollout", CONTRACT.md §8). */
@Entity('rollout')
export class Rollout {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'tenant_id', type: 'integer' })
  tenantId: number;

  @Column({ type: 'varchar', length: 128 })
  name: string;

  @Column({ name: 'firmware_id', type: 'integer' })
  firmwareId: number;

  @Column({ name: 'group_id', type: 'integer' })
  groupId: number;

  /** 1 is most urgent. */
  @Column({ type: 'integer' })
  priority: number;

  /** Epoch milliseconds (UTC); offered only once passed. */
  @Column({ name: 'start_date', type: 'bigint', transformer: epochMs })
  startDate: number;

  @Column({ type: 'varchar', length: 16 })
  status: RolloutStatus;

  /** Offered even when the target version does not order after the device's. */
  @Column({ type: 'boolean', default: false })
  downgrade: boolean;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;
}

/** A device's first success report for a rollout (CONTRACT.md §6). */
@Entity('rollout_success')
export class RolloutSuccess {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'rollout_id', type: 'integer' })
  rolloutId: number;

  @Column({ name: 'device_id', type: 'integer' })
  deviceId: number;

  /** The version the device reported. */
  @Column({ name: 'firmware_version', type: 'varchar', length: 64 })
  firmwareVersion: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;
}
