import { formatUtc } from '#src/platform/common/clock.js';
import type { WaveBound } from './policy/waves.js';
import { storedWindowsOf, type MaintenanceWindow } from './policy/windows.js';
import { storedRampOf, type RampPlan } from './policy/ramp.js';
import { criterionWire, storedAbortCriteriaOf } from './policy/abort.js';
import { rollbackWire, storedRollbackOf } from './policy/rollback.js';
import type { RolloutTimeouts } from './policy/timeouts.js';
import type { OfferWhen } from './policy/decision.js';
import type { DdiActionType, Rollout, RolloutApproval } from './rollout.entity.js';

/** A rollout's wave bounds (one wave `100%` when it has none). */
export function wavesOf(rollout: Pick<Rollout, 'waves'>): WaveBound[] {
  const bounds = JSON.parse(rollout.waves) as unknown;
  return Array.isArray(bounds) && bounds.length > 0 ? bounds.map(String) : ['100%'];
}

/** The plan and state of a rollout without its progress: what operators see of it and what the ledger records. */
export interface RolloutSnapshot {
  id: number;
  name: string;
  status: string;
  firmwareId: number;
  groupId: number;
  priority: number;
  /** `YYYY-MM-DD HH:MM:SS`, UTC. */
  startDate: string;
  downgrade: boolean;
  /** 1-based. */
  currentWave: number;
  successThreshold: number;
  errorThreshold: number | null;
  approval: RolloutApproval;
  awaitingApproval: boolean;
  pauseReason: string | null;
  /** How hawkBit DDI devices are told to take it (docs/decisions.md §12). */
  ddiActionType: DdiActionType;
}

/** A rollout's timeouts (seconds; `null`: none), docs/decisions.md §10.2. */
export function timeoutsOf(rollout: Pick<Rollout, 'timeoutOffered' | 'timeoutDownloading' | 'timeoutInstalled'>): RolloutTimeouts {
  return {
    offered: rollout.timeoutOffered ?? null,
    downloading: rollout.timeoutDownloading ?? null,
    installed: rollout.timeoutInstalled ?? null,
  };
}

/**
 * The windows, ramp, abort criteria, timeouts, rollback policy and an `offer_when` other than `newer` of a
 * rollout for the ledger, only where it has them (entries of rollouts without stay as they were).
 */
export function planned(rollout: Rollout): {
  windows?: MaintenanceWindow[];
  ramp?: RampPlan;
  abortCriteria?: ReturnType<typeof criterionWire>[];
  timeouts?: RolloutTimeouts;
  rollback?: ReturnType<typeof rollbackWire>;
  rollbackOf?: number;
  offerWhen?: OfferWhen;
} {
  const windows = storedWindowsOf(rollout.windows);
  const ramp = storedRampOf(rollout.ramp);
  const criteria = storedAbortCriteriaOf(rollout.abortCriteria);
  const timeouts = timeoutsOf(rollout);
  const rollback = storedRollbackOf(rollout.rollback);
  return {
    ...(windows.length > 0 ? { windows } : {}),
    ...(ramp !== null ? { ramp } : {}),
    ...(criteria.length > 0 ? { abortCriteria: criteria.map(criterionWire) } : {}),
    ...(Object.values(timeouts).some((t) => t !== null) ? { timeouts } : {}),
    ...(rollback !== null ? { rollback: rollbackWire(rollback) } : {}),
    ...(rollout.rollbackOf != null ? { rollbackOf: rollout.rollbackOf } : {}),
    ...(rollout.offerWhen === 'different' ? { offerWhen: rollout.offerWhen } : {}),
  };
}

/** The plan and state of a rollout, as operators see it and as the ledger records it. */
export function snapshot(rollout: Rollout): RolloutSnapshot {
  return {
    id: rollout.id,
    name: rollout.name,
    status: rollout.status,
    firmwareId: rollout.firmwareId,
    groupId: rollout.groupId,
    priority: rollout.priority,
    startDate: formatUtc(rollout.startDate),
    downgrade: rollout.downgrade,
    currentWave: rollout.currentWave,
    successThreshold: rollout.successThreshold,
    errorThreshold: rollout.errorThreshold,
    approval: rollout.approval,
    awaitingApproval: rollout.awaitingApproval,
    pauseReason: rollout.pauseReason,
    ddiActionType: rollout.ddiActionType,
  };
}
