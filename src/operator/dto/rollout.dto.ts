import { ApiProperty } from '@nestjs/swagger';
import {
  DDI_ACTION_TYPES,
  ROLLOUT_APPROVALS,
  ROLLOUT_STATUSES,
  type DdiActionType,
  type RolloutApproval,
  type RolloutStatus,
} from '#src/domain/rollout/rollout.entity.js';
import { OFFER_WHEN, type OfferWhen } from '#src/domain/rollout/policy/decision.js';
import { PageOf } from './paging.dto.js';
import { AbortCriterionDto, MaintenanceWindowDto, RampDto, RollbackPolicyDto, TimeoutsDto } from './rollout-plan.dto.js';

/** The devices of the examples: one rollout of 100 devices, 40 confirmed. */
const DEVICES_EXAMPLE: DeviceStateCounts = {
  targeted: 100,
  pending: 50,
  offered: 5,
  downloading: 0,
  installed: 5,
  confirmed: 40,
  failed: 0,
  fell_back: 0,
  timed_out: 0,
  skipped: 0,
};

/** The one wave of the examples. */
const WAVE_EXAMPLE: WaveResponse = {
  wave: 1,
  bound: '100%',
  status: 'running',
  started_at: '2026-12-01T08:00:00.000Z',
  devices: DEVICES_EXAMPLE,
};

/** How many devices are in each state (docs/decisions.md §10). */
export class DeviceStateCounts {
  @ApiProperty({ description: 'devices counted', example: 100 })
  targeted: number;

  @ApiProperty({ description: 'not offered yet (its wave not started, or not asked yet)', example: 10 })
  pending: number;

  @ApiProperty({ description: 'the next-rollout answer named the rollout', example: 5 })
  offered: number;

  @ApiProperty({ description: 'fetched the rollout’s firmware from the IPFS component', example: 5 })
  downloading: number;

  @ApiProperty({ description: 'reported success; its version not seen yet', example: 5 })
  installed: number;

  @ApiProperty({ description: 'reported the target version', example: 70 })
  confirmed: number;

  @ApiProperty({ description: 'reported a failure, or silent past the confirmation window after its success report', example: 2 })
  failed: number;

  @ApiProperty({ description: 'after its success report, reported another (its old) version', example: 3 })
  fell_back: number;

  @ApiProperty({
    description: 'stayed offered, downloading or installed longer than the rollout’s timeout of that state (docs/decisions.md §10.2)',
    example: 0,
  })
  timed_out: number;

  @ApiProperty({
    description:
      'never offered: runs a version the rollout will not replace (anti-rollback, policy in docs/decisions.md §10.5); not waited for',
    example: 0,
  })
  skipped: number;
}

/** One wave of a rollout. */
export class WaveResponse {
  @ApiProperty({ description: '1-based wave number', example: 1 })
  wave: number;

  @ApiProperty({ description: 'its cumulative bound as planned: `"10%"` or a whole number of devices', example: '10%' })
  bound: string;

  @ApiProperty({
    description: '`waiting`: not started; `running`: started, success threshold not reached; `passed`: reached it',
    enum: ['waiting', 'running', 'passed'],
    example: 'passed',
  })
  status: 'waiting' | 'running' | 'passed';

  @ApiProperty({
    description: 'when it started, ISO 8601 UTC; null before',
    type: String,
    nullable: true,
    example: '2026-12-01T08:00:00.000Z',
  })
  started_at: string | null;

  @ApiProperty({
    type: DeviceStateCounts,
    description: 'its devices per state',
    example: {
      targeted: 100,
      pending: 0,
      offered: 0,
      downloading: 0,
      installed: 0,
      confirmed: 85,
      failed: 5,
      fell_back: 10,
      timed_out: 0,
      skipped: 0,
    },
  })
  devices: DeviceStateCounts;
}

/** A rollout with its progress (docs/decisions.md §9, docs/decisions.md §10). */
export class OperatorRolloutResponse {
  @ApiProperty({ description: 'rollout id (the rollout_id devices see)', example: 1 })
  id: number;

  @ApiProperty({ description: 'rollout name', example: '1.2.0 to field test' })
  name: string;

  @ApiProperty({
    description: 'lifecycle state: draft → active ⇄ paused → finished; cancelled from any unfinished state',
    enum: ROLLOUT_STATUSES,
    example: 'active',
  })
  status: RolloutStatus;

  @ApiProperty({ description: 'firmware it rolls out', example: 1 })
  firmware_id: number;

  @ApiProperty({ description: 'device group it targets', example: 1 })
  group_id: number;

  @ApiProperty({ description: '1 is most urgent', example: 1 })
  priority: number;

  @ApiProperty({ description: '`YYYY-MM-DD HH:MM:SS`, UTC', example: '2026-12-01 08:00:00' })
  start_date: string;

  @ApiProperty({ description: 'offered even to devices whose version orders after its version', example: false })
  downgrade: boolean;

  @ApiProperty({
    description:
      'which targets are offered the firmware: `newer` (only devices whose version orders before it: anti-rollback) or ' +
      '`different` (every device not already running its version, as Mender and hawkBit do), docs/decisions.md §10.5',
    enum: OFFER_WHEN,
    example: 'newer',
  })
  offer_when: OfferWhen;

  @ApiProperty({
    description: 'its targets: registered members of its group of the firmware’s device type (docs/decisions.md §10)',
    example: 100,
  })
  targeted: number;

  @ApiProperty({ description: 'targets that reported running the target version', example: 40 })
  confirmed: number;

  @ApiProperty({ description: 'targets the rollout still waits for: not confirmed, failed, fell back, timed out or skipped', example: 60 })
  unsettled: number;

  @ApiProperty({
    description: 'targets it will never update (they run a version it will not replace): counted apart, never waited for',
    example: 0,
  })
  skipped: number;

  @ApiProperty({
    description: 'registered members of its group of another device type: never offered it, never waited for',
    example: 3,
  })
  not_applicable: number;

  @ApiProperty({ description: 'members of its group that no registered device has the identifier of: not waited for', example: 12 })
  not_registered: number;

  @ApiProperty({
    description: 'deprecated: the same as `confirmed`, kept until firmledger 0.3 for clients written before it',
    example: 40,
    deprecated: true,
  })
  updated: number;

  @ApiProperty({
    description:
      'deprecated: the same as `unsettled` (not the `pending` device state), kept until firmledger 0.3 for clients written before it',
    example: 60,
    deprecated: true,
  })
  pending: number;

  @ApiProperty({
    description: 'time of the latest change of a device’s state, ISO 8601 UTC; null before the first',
    example: '2026-12-01T09:30:00.000Z',
    type: String,
    nullable: true,
  })
  last_activity_at: string | null;

  @ApiProperty({
    type: DeviceStateCounts,
    description: 'devices per state, all waves',
    example: DEVICES_EXAMPLE,
  })
  devices: DeviceStateCounts;

  @ApiProperty({
    type: [WaveResponse],
    description: 'the waves in order (one wave `100%` for a rollout planned without waves)',
    example: [WAVE_EXAMPLE],
  })
  waves: WaveResponse[];

  @ApiProperty({ description: 'the latest wave started (1 until started)', example: 1 })
  current_wave: number;

  @ApiProperty({ description: 'confirmed share of a wave, 0 to 1, at which the next wave starts', example: 0.9 })
  success_threshold: number;

  @ApiProperty({
    description: 'failed and fell-back share of a wave, 0 to 1, above which the rollout pauses itself; null: never',
    type: Number,
    nullable: true,
    example: 0.2,
  })
  error_threshold: number | null;

  @ApiProperty({ description: 'how the next wave starts', enum: ROLLOUT_APPROVALS, example: 'auto' })
  approval: RolloutApproval;

  @ApiProperty({ description: 'manual approval: the current wave reached its success threshold and waits for an operator', example: false })
  awaiting_approval: boolean;

  @ApiProperty({
    description:
      'why the rollout paused itself (its error threshold or an abort criterion) or cancelled itself (an abort criterion, ' +
      'docs/decisions.md §10.2); null otherwise, cleared on resume',
    type: String,
    nullable: true,
    example: null,
  })
  pause_reason: string | null;

  @ApiProperty({
    description: 'how hawkBit DDI devices are told to take it (docs/decisions.md §12)',
    enum: DDI_ACTION_TYPES,
    example: 'forced',
  })
  ddi_action_type: DdiActionType;

  @ApiProperty({ type: [MaintenanceWindowDto], description: 'its maintenance windows; empty: always open', example: [] })
  windows: MaintenanceWindowDto[];

  @ApiProperty({ description: 'whether devices may install it now: inside a window, or it has no windows', example: true })
  window_open: boolean;

  @ApiProperty({
    description: 'when a window next opens, ISO 8601 UTC (while one is open: the first after it closes); null without windows',
    type: String,
    nullable: true,
    example: null,
  })
  next_window_at: string | null;

  @ApiProperty({
    description: 'while a window is open: when it closes, ISO 8601 UTC; else null',
    type: String,
    nullable: true,
    example: null,
  })
  window_closes_at: string | null;

  @ApiProperty({ type: RampDto, nullable: true, description: 'its ramp of new offers; null: none', example: null })
  ramp: RampDto | null;

  @ApiProperty({
    type: [AbortCriterionDto],
    description: 'its abort criteria in order (docs/decisions.md §10.2); empty: none',
    example: [{ failure: 'failed', threshold_percentage: 10, min_finished: 20, action: 'pause' }],
  })
  abort_criteria: AbortCriterionDto[];

  @ApiProperty({
    type: TimeoutsDto,
    description: 'its timeouts per state, seconds; null: none (installed: the server’s confirmation window, then failed)',
    example: { offered: 3600, downloading: null, installed: null },
  })
  timeouts: TimeoutsDto;

  @ApiProperty({
    type: RollbackPolicyDto,
    nullable: true,
    description: 'its rollback policy (docs/decisions.md §10.4); null: none',
    example: null,
  })
  rollback: RollbackPolicyDto | null;

  @ApiProperty({
    description: 'the rollback rollout its policy started when it fired (this rollout was then cancelled); null until then',
    type: Number,
    nullable: true,
    example: null,
  })
  rollback_rollout_id: number | null;

  @ApiProperty({ description: 'for a rollback rollout: the rollout it rolls back; else null', type: Number, nullable: true, example: null })
  rollback_of: number | null;
}

const ROLLOUT_EXAMPLE: OperatorRolloutResponse = {
  id: 1,
  name: '1.2.0 to field test',
  status: 'active',
  firmware_id: 1,
  group_id: 1,
  priority: 1,
  start_date: '2026-12-01 08:00:00',
  downgrade: false,
  offer_when: 'newer',
  targeted: 100,
  confirmed: 40,
  unsettled: 60,
  skipped: 0,
  not_applicable: 3,
  not_registered: 12,
  updated: 40,
  pending: 60,
  last_activity_at: '2026-12-01T09:30:00.000Z',
  devices: DEVICES_EXAMPLE,
  waves: [WAVE_EXAMPLE],
  current_wave: 1,
  success_threshold: 0.9,
  error_threshold: null,
  approval: 'auto',
  awaiting_approval: false,
  pause_reason: null,
  ddi_action_type: 'forced',
  windows: [],
  window_open: true,
  next_window_at: null,
  window_closes_at: null,
  ramp: null,
  abort_criteria: [],
  timeouts: { offered: null, downloading: null, installed: null },
  rollback: null,
  rollback_rollout_id: null,
  rollback_of: null,
};

/** One page of `GET /tenants/:tenant/rollouts`, oldest first. */
export class RolloutPage extends PageOf(OperatorRolloutResponse, {
  description: 'rollouts of this page, by id',
  example: [ROLLOUT_EXAMPLE],
}) {}

/** Answer of `POST /tenants/:tenant/rollouts/:id/retry`. */
export class RetryResponse {
  @ApiProperty({ description: 'failed, fell-back and timed-out devices sent back to pending', example: 12 })
  retried: number;

  @ApiProperty({ type: OperatorRolloutResponse, description: 'the rollout after the retry', example: ROLLOUT_EXAMPLE })
  rollout: OperatorRolloutResponse;
}
