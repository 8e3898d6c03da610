import { abortReason, firedCriterion, type AbortCriterion, type AbortFiring } from './abort.js';
import { SETTLED_STATES, noDevices, type StateCounts } from './device-states.js';
import type { RolloutApproval, RolloutStatus } from './lifecycle.js';
import { judgeWave, pauseReason } from './waves.js';

/** What the settle step reads of a rollout. */
export interface SettlingRollout {
  status: RolloutStatus;
  /** The latest wave started (1-based). */
  currentWave: number;
  approval: RolloutApproval;
  /** The current wave passed and waits for an operator's approval. */
  awaitingApproval: boolean;
  /** Confirmed share (0 to 1) a wave needs to pass. */
  successThreshold: number;
  /** Failed and fell-back share (0 to 1) above which the rollout pauses itself; `null`: never. */
  errorThreshold: number | null;
  /** Its abort criteria in order (docs/decisions.md §10.2); empty: none. */
  abortCriteria?: readonly AbortCriterion[];
}

/** How a rollout's devices stand, as the settle step reads them. */
export interface SettlingCounts {
  /** Targets per wave (index 0 is wave 1) and state. */
  waves: readonly StateCounts[];
  /** Members of its group no registered device has the identifier of: they may still become targets. */
  notRegistered: number;
}

/** What the rollout does next, given its devices' counts; the settle job carries it out. */
export type RolloutStep =
  /** Every target settled, every member registered: the rollout is finished. */
  | { kind: 'finish' }
  /** An abort criterion fired (the first in the rollout's order): the rollout pauses or cancels itself, with this reason. */
  | { kind: 'abort'; action: 'pause' | 'cancel'; reason: string; firing: AbortFiring }
  /** A started wave is over its error threshold: the rollout pauses itself, with this reason. */
  | { kind: 'pause'; wave: number; reason: string }
  /** The current wave passed and approval is manual: wait for an operator. */
  | { kind: 'await_approval'; wave: number }
  /** The current wave passed and approval is automatic: start this wave. */
  | { kind: 'start_wave'; wave: number }
  /** Nothing to do. */
  | { kind: 'none' };

/**
 * The rollout policy's one decision after devices changed state (docs/decisions.md §10), in this
 * order: a rollout that is neither active nor paused does nothing; once it has targets, every
 * one is confirmed, failed or fell back, and every member of its group is registered, it
 * finishes; a paused one does nothing more; the first abort criterion that fires on the counts of
 * every started wave (policy/abort.ts, docs/decisions.md §10.2) pauses or cancels it; a started wave
 * whose failed and fell-back share is above the error threshold pauses it (only `changedWave` is
 * judged when given); else, when the
 * current wave reached the success threshold and a wave is left, the next starts (`auto`) or waits
 * for approval (`manual`).
 * @param counts targets per wave (those without a state counted as `pending` in the last wave),
 *   and the members not registered.
 * @param changedWave the wave whose devices changed, if known.
 */
export function nextStep(rollout: SettlingRollout, counts: SettlingCounts, changedWave?: number): RolloutStep {
  if (rollout.status !== 'active' && rollout.status !== 'paused') return { kind: 'none' };
  const { waves } = counts;
  const total = sumCounts(waves);
  const settled = SETTLED_STATES.reduce((n, state) => n + total[state], 0);
  if (total.targeted > 0 && settled >= total.targeted && counts.notRegistered === 0) return { kind: 'finish' };
  if (rollout.status !== 'active') return { kind: 'none' };
  if (rollout.abortCriteria !== undefined && rollout.abortCriteria.length > 0) {
    const firing = firedCriterion(rollout.abortCriteria, sumCounts(waves.slice(0, Math.max(1, rollout.currentWave))));
    if (firing !== null) return { kind: 'abort', action: firing.criterion.action, reason: abortReason(firing), firing };
  }
  if (rollout.errorThreshold !== null) {
    for (let wave = 1; wave <= Math.min(rollout.currentWave, waves.length); wave++) {
      if (changedWave !== undefined && wave !== changedWave) continue;
      const counts = waves[wave - 1];
      if (judgeWave(counts, rollout.successThreshold, rollout.errorThreshold).overErrors) {
        return { kind: 'pause', wave, reason: pauseReason(wave, counts, rollout.errorThreshold) };
      }
    }
  }
  const wave = rollout.currentWave;
  if (wave >= waves.length || rollout.awaitingApproval) return { kind: 'none' };
  if (!judgeWave(waves[wave - 1], rollout.successThreshold, rollout.errorThreshold).passed) return { kind: 'none' };
  return rollout.approval === 'manual' ? { kind: 'await_approval', wave } : { kind: 'start_wave', wave: wave + 1 };
}

/** The counts of several waves added up. */
export function sumCounts(waves: readonly StateCounts[]): StateCounts {
  const total = noDevices();
  for (const counts of waves) for (const key of Object.keys(total) as (keyof StateCounts)[]) total[key] += counts[key];
  return total;
}
