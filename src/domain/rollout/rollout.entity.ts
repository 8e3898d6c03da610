import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { epochMs } from '#src/platform/database/columns.js';
import type { OfferWhen } from './policy/decision.js';
import type { DdiActionType, RolloutApproval, RolloutStatus } from './policy/lifecycle.js';

export {
  DDI_ACTION_TYPES,
  ROLLOUT_APPROVALS,
  ROLLOUT_STATUSES,
  type DdiActionType,
  type RolloutApproval,
  type RolloutStatus,
} from './policy/lifecycle.js';

/** A planned firmware update for a group of devices (docs/device-interface.md "Rollout", docs/decisions.md §8). */
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

  /** Which targets are offered the firmware: `newer` (anti-rollback) or `different` (policy/decision.ts, docs/decisions.md §10.5). */
  @Column({ name: 'offer_when', type: 'varchar', length: 16, default: 'newer' })
  offerWhen: OfferWhen;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;

  /**
   * Cumulative wave bounds as JSON text: `"10%"` (share of the devices targeted at start) or a
   * whole number of devices; the last wave also takes the rest and later joiners (see waves.ts).
   */
  @Column({ type: 'varchar', length: 512, default: '["100%"]' })
  waves: string;

  /** Confirmed share of a wave (0 to 1) at which the next wave may start. */
  @Column({ name: 'success_threshold', type: 'float', default: 0.9 })
  successThreshold: number;

  /** Failed and fell-back share of a wave (0 to 1) above which the rollout pauses itself; `null`: never. */
  @Column({ name: 'error_threshold', type: 'float', nullable: true })
  errorThreshold: number | null;

  /** `auto`: the next wave starts by itself; `manual`: after an operator approves it. */
  @Column({ type: 'varchar', length: 8, default: 'auto' })
  approval: RolloutApproval;

  /** The latest wave started (1-based); devices of later waves are not offered the rollout. */
  @Column({ name: 'current_wave', type: 'integer', default: 1 })
  currentWave: number;

  /** Manual approval: the current wave reached its success threshold and waits for an operator. */
  @Column({ name: 'awaiting_approval', type: 'boolean', default: false })
  awaitingApproval: boolean;

  /** Why the rollout paused itself (error threshold); `null` otherwise, cleared on resume. */
  @Column({ name: 'pause_reason', type: 'varchar', length: 512, nullable: true })
  pauseReason: string | null;

  /** JSON array of the start time (epoch ms) of each wave started so far. */
  @Column({ name: 'wave_starts', type: 'varchar', length: 1024, default: '[]' })
  waveStarts: string;

  /** How DDI devices are told to take it: `forced`, `soft` (hawkBit `attempt`) or `download-only` (docs/decisions.md §12). */
  @Column({ name: 'ddi_action_type', type: 'varchar', length: 16, default: 'forced' })
  ddiActionType: DdiActionType;

  /**
   * Maintenance windows as JSON text of `MaintenanceWindow`s (policy/windows.ts); `[]`: none, always
   * open. Outside every window the rollout is not installed (docs/decisions.md §10.1).
   */
  @Column({ type: 'varchar', length: 2048, default: '[]' })
  windows: string;

  /** The ramp as JSON text of a `RampPlan` (policy/ramp.ts); `null`: new offers are not limited (docs/decisions.md §10.1). */
  @Column({ type: 'varchar', length: 256, nullable: true })
  ramp: string | null;

  /**
   * Abort criteria as JSON text of `AbortCriterion`s (policy/abort.ts); `[]`: none. The first that
   * fires pauses or cancels the rollout (docs/decisions.md §10.2).
   */
  @Column({ name: 'abort_criteria', type: 'varchar', length: 1024, default: '[]' })
  abortCriteria: string;

  /** Seconds a device may stay `offered` before it is `timed_out`; `null`: no limit (docs/decisions.md §10.2). */
  @Column({ name: 'timeout_offered', type: 'integer', nullable: true })
  timeoutOffered: number | null;

  /** Seconds a device may stay `downloading` before it is `timed_out`; `null`: no limit. */
  @Column({ name: 'timeout_downloading', type: 'integer', nullable: true })
  timeoutDownloading: number | null;

  /**
   * Seconds a device may stay `installed` before it is `timed_out`; `null`: the server's
   * `ROLLOUT_CONFIRMATION_WINDOW_SECONDS`, after which it is `failed` (docs/decisions.md §10).
   */
  @Column({ name: 'timeout_installed', type: 'integer', nullable: true })
  timeoutInstalled: number | null;

  /** The rollback policy (JSON of policy/rollback.ts `RollbackPolicy`), `null` for none (docs/decisions.md §10.4). */
  @Column({ type: 'varchar', length: 512, nullable: true })
  rollback: string | null;

  /** The rollback rollout this rollout's policy started when it fired; `null` until then. */
  @Column({ name: 'rollback_rollout_id', type: 'integer', nullable: true })
  rollbackRolloutId: number | null;

  /** For a rollback rollout: the rollout it rolls back; `null` for any other. */
  @Column({ name: 'rollback_of', type: 'integer', nullable: true })
  rollbackOf: number | null;
}

/**
 * New offers of a ramped rollout in one minute (docs/decisions.md §10.1): shared by every
 * instance, taken by an atomic conditional upsert (RolloutRepository.takeOffer).
 */
@Entity('rollout_ramp_minute')
export class RolloutRampMinute {
  @PrimaryColumn({ name: 'rollout_id', type: 'integer' })
  rolloutId: number;

  /** Epoch minute (epoch ms / 60000, rounded down). */
  @PrimaryColumn({ type: 'bigint', transformer: epochMs })
  minute: number;

  /** New offers made in it. */
  @Column({ type: 'integer' })
  used: number;
}

/** A device's first success report for a rollout (docs/decisions.md §6). */
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
