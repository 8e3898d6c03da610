import { Injectable, NotFoundException } from '@nestjs/common';
import { Clock } from '#src/platform/common/clock.js';
import type { Counted, Slice } from '#src/platform/common/paging.js';
import { SETTLED_STATES, type DeviceState, type StateCounts } from './policy/device-states.js';
import { decide, type Decision, type OfferWhen } from './policy/decision.js';
import { sumCounts } from './policy/next-step.js';
import { judgeWave, type WaveBound } from './policy/waves.js';
import { storedWindowsOf, windowAt, type MaintenanceWindow } from './policy/windows.js';
import { storedRollbackOf, type RollbackPolicy } from './policy/rollback.js';
import { storedRampOf, type RampPlan } from './policy/ramp.js';
import { storedAbortCriteriaOf, type AbortCriterion } from './policy/abort.js';
import type { RolloutTimeouts } from './policy/timeouts.js';
import { DeviceStateRepository, type RolloutDeviceRow } from './device-state.repository.js';
import { OfferWriter } from './offer-writer.js';
import type { Rollout, RolloutStatus } from './rollout.entity.js';
import { RolloutRepository } from './rollout.repository.js';
import { snapshot, timeoutsOf, wavesOf, type RolloutSnapshot } from './rollout-snapshot.js';

/** One wave of a rollout as operators see it. */
export interface WaveView {
  /** 1-based. */
  wave: number;
  /** Its cumulative bound as planned (`"10%"`, `"50"`). */
  bound: WaveBound;
  /** `waiting` (not started), `running` (started, success threshold not reached), `passed` (reached it). */
  status: 'waiting' | 'running' | 'passed';
  /** ISO 8601 UTC, `null` before it started. */
  startedAt: string | null;
  devices: StateCounts;
}

/** A rollout as operators see it, with its progress. */
export interface RolloutView extends RolloutSnapshot {
  /** Its targets: registered members of its group of the firmware's device type (docs/decisions.md §10). */
  targeted: number;
  /** Targets that reported running the target version. */
  confirmed: number;
  /** Targets the rollout still waits for: not confirmed, failed, fell back, timed out or skipped. */
  unsettled: number;
  /** Targets it will never update (policy/decision.ts): counted apart, never waited for (docs/decisions.md §10.5). */
  skipped: number;
  /** Which targets are offered the firmware (docs/decisions.md §10.5). */
  offerWhen: OfferWhen;
  /** Registered members of its group of another device type: never offered it, never waited for. */
  notApplicable: number;
  /** Members of its group no registered device has the identifier of: not waited for. */
  notRegistered: number;
  /** Deprecated: {@link confirmed}, under the name it had before device states. */
  updated: number;
  /** Deprecated: {@link unsettled}, under the name that clashed with the `pending` device state. */
  pending: number;
  lastActivity: string | null;
  /** Devices per state, all waves. */
  devices: StateCounts;
  waves: WaveView[];
  /** Its maintenance windows (none: always open, docs/decisions.md §10.1). */
  windows: MaintenanceWindow[];
  /** Whether a window is open now (also with no windows). */
  windowOpen: boolean;
  /** ISO 8601 UTC of the next opening of a window (while open: the first after it closes); `null` with no windows. */
  nextWindowAt: string | null;
  /** While a window is open: ISO 8601 UTC when it closes; else `null`. */
  windowClosesAt: string | null;
  /** Its ramp, `null`: none (docs/decisions.md §10.1). */
  ramp: RampPlan | null;
  /** Its abort criteria in order; none: empty (docs/decisions.md §10.2). */
  /** Its rollback policy, `null`: none (docs/decisions.md §10.4). */
  rollback: RollbackPolicy | null;
  /** The rollback rollout its policy started, once it fired; else `null`. */
  rollbackRolloutId: number | null;
  /** For a rollback rollout: the rollout it rolls back; else `null`. */
  rollbackOf: number | null;
  abortCriteria: AbortCriterion[];
  /** Its timeouts per state, seconds; `null`: none (docs/decisions.md §10.2). */
  timeouts: RolloutTimeouts;
}

/** What operators read of rollouts: each with its plan, state and progress per state and per wave (docs/decisions.md §10). */
@Injectable()
export class RolloutProgressService {
  constructor(
    private readonly rollouts: RolloutRepository,
    private readonly states: DeviceStateRepository,
    private readonly offers: OfferWriter,
    private readonly clock: Clock,
  ) {}

  /** The tenant's rollouts (only those in `statuses`, if given), oldest first, with progress. */
  async list(tenantId: number, statuses?: readonly RolloutStatus[]): Promise<RolloutView[]> {
    return Promise.all((await this.rollouts.listRollouts(tenantId, statuses)).map((r) => this.view(r)));
  }

  /** One page of the tenant's rollouts (of one status, if given), oldest first, with progress, and their total. */
  async page(tenantId: number, status: RolloutStatus | undefined, slice: Slice): Promise<Counted<RolloutView>> {
    const [rows, total] = await this.rollouts.pageRollouts(tenantId, status, slice.offset, slice.limit);
    return { items: await Promise.all(rows.map((r) => this.view(r))), total };
  }

  /**
   * One page of a rollout's devices that have a state (of one state and wave, if given), by wave
   * then device id, and their total.
   * @throws NotFoundException for another tenant's or an unknown rollout.
   */
  async devices(
    tenantId: number,
    id: number,
    filter: { state?: DeviceState; wave?: number },
    slice: Slice,
  ): Promise<Counted<RolloutDeviceRow & { decision: Decision }>> {
    const rollout = await this.rollouts.findRollout(tenantId, id);
    if (!rollout) throw new NotFoundException('Rollout not found');
    await this.offers.flush();
    const [rows, total] = await this.states.pageDevices(id, filter, slice.offset, slice.limit);
    const version = await this.rollouts.targetVersion(rollout.firmwareId);
    const plan = { ...rollout, version, waveCount: wavesOf(rollout).length, windows: storedWindowsOf(rollout.windows) };
    const now = this.clock.now();
    const items = rows.map((row) => {
      const decision = decide({ version: row.firmwareVersion, state: row.state, wave: row.wave }, plan, now);
      // A skipped or settled device: the reason kept with its state says more than the state's name.
      const explained =
        decision.kind === 'settled' && row.failureMessage ? { ...decision, reason: `${row.state}: ${row.failureMessage}` } : decision;
      return { ...row, decision: explained };
    });
    return { items, total };
  }

  /** @throws NotFoundException for another tenant's or an unknown rollout. */
  async get(tenantId: number, id: number): Promise<RolloutView> {
    const rollout = await this.rollouts.findRollout(tenantId, id);
    if (!rollout) throw new NotFoundException('Rollout not found');
    return this.view(rollout);
  }

  /** The rollout as operators see it: plan, state, progress per state and per wave. */
  async view(rollout: Rollout): Promise<RolloutView> {
    await this.offers.flush();
    const bounds = wavesOf(rollout);
    const { waves: counts, notApplicable, notRegistered } = await this.states.progress(rollout.id, bounds.length);
    const lastActivity = await this.states.lastChange(rollout.id);
    const devices = sumCounts(counts);
    const unsettled = devices.targeted - SETTLED_STATES.reduce((n, state) => n + devices[state], 0);
    const starts = JSON.parse(rollout.waveStarts) as number[];
    const started = rollout.status !== 'draft';
    const windows = storedWindowsOf(rollout.windows);
    const window = windowAt(windows, this.clock.now());
    const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
    return {
      ...snapshot(rollout),
      windows: [...windows],
      windowOpen: window.open,
      nextWindowAt: iso(window.nextOpen),
      windowClosesAt: iso(window.closesAt),
      ramp: storedRampOf(rollout.ramp),
      abortCriteria: [...storedAbortCriteriaOf(rollout.abortCriteria)],
      timeouts: timeoutsOf(rollout),
      rollback: storedRollbackOf(rollout.rollback),
      rollbackRolloutId: rollout.rollbackRolloutId ?? null,
      rollbackOf: rollout.rollbackOf ?? null,
      targeted: devices.targeted,
      confirmed: devices.confirmed,
      unsettled,
      skipped: devices.skipped,
      offerWhen: rollout.offerWhen,
      notApplicable,
      notRegistered,
      updated: devices.confirmed,
      pending: unsettled,
      lastActivity: lastActivity === null ? null : new Date(lastActivity).toISOString(),
      devices,
      waves: bounds.map((bound, index): WaveView => {
        const wave = index + 1;
        const running = started && wave <= rollout.currentWave;
        const passed = running && judgeWave(counts[index], rollout.successThreshold, rollout.errorThreshold).passed;
        return {
          wave,
          bound,
          status: !running ? 'waiting' : passed ? 'passed' : 'running',
          startedAt: running && starts[index] !== undefined ? new Date(starts[index]).toISOString() : null,
          devices: counts[index],
        };
      }),
    };
  }
}
