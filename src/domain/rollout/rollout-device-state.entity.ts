import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { epochMs } from '#src/platform/database/columns.js';
import type { DeviceState } from './policy/device-states.js';

/**
 * Where one targeted device stands in one rollout (docs/decisions.md §10): its state, its
 * wave, when it reached each state, how often it was offered, and the failure message if any.
 */
@Entity('rollout_device_state')
export class RolloutDeviceState {
  @PrimaryColumn({ name: 'rollout_id', type: 'integer' })
  rolloutId: number;

  @PrimaryColumn({ name: 'device_id', type: 'integer' })
  deviceId: number;

  /** 1-based wave the device belongs to. */
  @Column({ type: 'integer' })
  wave: number;

  @Column({ type: 'varchar', length: 16 })
  state: DeviceState;

  /** Times the rollout was offered to the device (a retry offers it again). */
  @Column({ type: 'integer', default: 0 })
  attempts: number;

  /** Epoch ms of the latest `offered`, or `null`. */
  @Column({ name: 'offered_at', type: 'bigint', nullable: true, transformer: epochMs })
  offeredAt: number | null;

  @Column({ name: 'downloading_at', type: 'bigint', nullable: true, transformer: epochMs })
  downloadingAt: number | null;

  @Column({ name: 'installed_at', type: 'bigint', nullable: true, transformer: epochMs })
  installedAt: number | null;

  @Column({ name: 'confirmed_at', type: 'bigint', nullable: true, transformer: epochMs })
  confirmedAt: number | null;

  /** Epoch ms of the latest `failed`, `fell_back` or `timed_out`, or `null`. */
  @Column({ name: 'failed_at', type: 'bigint', nullable: true, transformer: epochMs })
  failedAt: number | null;

  /** The version of the device's latest success or failure report for this rollout. */
  @Column({ name: 'reported_version', type: 'varchar', length: 64, nullable: true })
  reportedVersion: string | null;

  /** The device's failure message, or why the server counted it as failed or fell back. */
  @Column({ name: 'failure_message', type: 'varchar', length: 500, nullable: true })
  failureMessage: string | null;

  /** Epoch ms of the latest change. */
  @Column({ name: 'updated_at', type: 'bigint', transformer: epochMs })
  updatedAt: number;
}

/** One state change of a device in a rollout: the device's history. */
@Entity('rollout_device_transition')
export class RolloutDeviceTransition {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'rollout_id', type: 'integer' })
  rolloutId: number;

  @Column({ name: 'device_id', type: 'integer' })
  deviceId: number;

  @Column({ type: 'varchar', length: 16 })
  state: DeviceState;

  /** Epoch ms. */
  @Column({ type: 'bigint', transformer: epochMs })
  at: number;

  @Column({ type: 'varchar', length: 500, nullable: true })
  message: string | null;
}
