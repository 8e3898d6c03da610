import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { FieldException } from '#src/platform/http/http-error.filter.js';
import type { EntityManager } from 'typeorm';
import { Clock, formatUtc, parseUtc } from '#src/platform/common/clock.js';
import type { Counted, Slice } from '#src/platform/common/paging.js';
import type { Actor } from '#src/domain/ledger/ledger-actor.js';
import { LedgerService, Subject } from '#src/domain/ledger/ledger.service.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import { FirmwareService } from '#src/domain/firmware/firmware.service.js';
import { RETRIED_STATES, type DeviceState, type StateCounts } from './policy/device-states.js';
import { nextStep, sumCounts } from './policy/next-step.js';
import { DeviceStateRepository, type RolloutDeviceRow } from './device-state.repository.js';
import { transition, type RolloutAction } from './policy/lifecycle.js';
import { DDI_ACTION_TYPES, type DdiActionType, type Rollout, type RolloutApproval, type RolloutStatus } from './rollout.entity.js';
import { OfferWriter } from './offer-writer.js';
import { GroupService } from '#src/domain/group/group.service.js';
import { RolloutRepository } from './rollout.repository.js';
import { judgeWave, parseWavePlan, waveEnds, waveOf, type WaveBound } from './policy/waves.js';
import { parseWindows, storedWindowsOf, windowAt, type MaintenanceWindow } from './policy/windows.js';
import { parseRamp, storedRampOf, type RampPlan } from './policy/ramp.js';

/** Largest `priority` number; 1 is most urgent (docs/decisions.md §8). */
export const MAX_PRIORITY = 1_000_000;

/** What an operator plans. */
export interface PlanRollout {
  tenantId: number;
  name: string;
  firmwareId: number;
  /** Group id or name. */
  group: string;
  /** Whole number ≥ 1; 1 is most urgent. */
  priority: number;
  /** `YYYY-MM-DD HH:MM:SS`, UTC. */
  startDate: string;
  /** Offer even when the target version is not newer. */
  downgrade?: boolean;
  /** Cumulative wave bounds (`"10%"` or a whole number of devices); default one wave `100%` (see waves.ts). */
  waves?: readonly (string | number)[];
  /** Confirmed share of a wave (0 to 1) that lets the next wave start; default {@link DEFAULT_SUCCESS_THRESHOLD}. */
  successThreshold?: number;
  /** Failed and fell-back share of a wave (0 to 1) above which the rollout pauses itself; default `null` (never). */
  errorThreshold?: number | null;
  /** How the next wave starts; default `auto`. */
  approval?: RolloutApproval;
  /** How hawkBit DDI devices are told to take it (docs/decisions.md §12); default `forced`. */
  ddiActionType?: DdiActionType;
  /**
   * Maintenance windows as the operator API takes them, `{cron, duration_seconds, time_zone}` each
   * (policy/windows.ts {@link parseWindows}); default none (always open).
   */
  windows?: readonly unknown[];
  /**
   * The ramp as the operator API takes it, `{base_per_minute, increment_factor, increment_every,
   * maximum_per_minute}` (policy/ramp.ts {@link parseRamp}); default none.
   */
  ramp?: unknown;
  /** Who plans it (recorded on the ledger). */
  actor?: Actor;
}

/** Success threshold of a rollout planned without one. */
export const DEFAULT_SUCCESS_THRESHOLD = 0.9;

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
export interface RolloutView {
  id: number;
  name: string;
  status: string;
  firmwareId: number;
  groupId: number;
  priority: number;
  startDate: string;
  downgrade: boolean;
  /** Its targets: registered members of its group of the firmware's device type (docs/decisions.md §10). */
  targeted: number;
  /** Targets that reported running the target version. */
  confirmed: number;
  /** Targets the rollout still waits for: not confirmed, failed or fell back. */
  unsettled: number;
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
  currentWave: number;
  successThreshold: number;
  errorThreshold: number | null;
  approval: RolloutApproval;
  awaitingApproval: boolean;
  pauseReason: string | null;
  /** How hawkBit DDI devices are told to take it (docs/decisions.md §12). */
  ddiActionType: DdiActionType;
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
}

/** Operators' side of rollouts: plan, lifecycle, progress. Every change goes to the ledger. */
@Injectable()
export class RolloutPlanService {
  constructor(
    private readonly rollouts: RolloutRepository,
    private readonly states: DeviceStateRepository,
    private readonly offers: OfferWriter,
    private readonly groups: GroupService,
    private readonly firmware: FirmwareService,
    private readonly unitOfWork: UnitOfWork,
    private readonly ledger: LedgerService,
    private readonly clock: Clock,
  ) {}

  /**
   * Plans a rollout in state `draft`.
   * @throws FieldException (400 naming the field) for a bad priority, start date, name, wave plan or
   *   threshold; NotFoundException for an
   *   unknown firmware or group of the tenant.
   */
  async create(plan: PlanRollout): Promise<RolloutView> {
    if (!Number.isSafeInteger(plan.priority) || plan.priority < 1 || plan.priority > MAX_PRIORITY) {
      throw new FieldException('priority', `priority must be a whole number from 1 to ${MAX_PRIORITY}`);
    }
    const startDate = parseUtc(plan.startDate);
    if (startDate === null) throw new FieldException('start_date', 'start date must be "YYYY-MM-DD HH:MM:SS" (UTC)');
    if (plan.name.length < 1 || plan.name.length > 128) throw new FieldException('name', 'name must be 1 to 128 characters');
    const wavePlan = parseWavePlan(plan.waves ?? ['100%']);
    if ('error' in wavePlan) throw new FieldException('waves', wavePlan.error.message);
    const waves = wavePlan.bounds;
    const successThreshold = plan.successThreshold ?? DEFAULT_SUCCESS_THRESHOLD;
    const errorThreshold = plan.errorThreshold ?? null;
    for (const [name, value] of [
      ['success_threshold', successThreshold],
      ['error_threshold', errorThreshold ?? 0],
    ] as const) {
      if (!Number.isFinite(value) || value < 0 || value > 1) throw new FieldException(name, `${name} must be a share from 0 to 1`);
    }
    const ddiActionType = plan.ddiActionType ?? 'forced';
    if (!DDI_ACTION_TYPES.includes(ddiActionType)) {
      throw new FieldException('ddi_action_type', `ddi_action_type must be one of ${DDI_ACTION_TYPES.join(', ')}`);
    }
    const windows = parseWindows(plan.windows ?? []);
    if ('error' in windows) throw new FieldException(windows.error.field, windows.error.message);
    const ramp = plan.ramp === undefined || plan.ramp === null ? null : parseRamp(plan.ramp);
    if (ramp !== null && 'error' in ramp) throw new FieldException(ramp.error.field, ramp.error.message);
    const firmware = await this.firmware.require(plan.tenantId, plan.firmwareId);
    const group = await this.groups.require(plan.tenantId, plan.group);
    const rollout = await this.unitOfWork.transaction(async (manager) => {
      const created = await this.rollouts.insertRollout(manager, {
        tenantId: plan.tenantId,
        name: plan.name,
        firmwareId: firmware.id,
        groupId: group.id,
        priority: plan.priority,
        startDate,
        status: 'draft',
        downgrade: plan.downgrade ?? false,
        createdAt: this.clock.now(),
        waves: JSON.stringify(waves),
        successThreshold,
        errorThreshold,
        approval: plan.approval ?? 'auto',
        currentWave: 1,
        awaitingApproval: false,
        pauseReason: null,
        waveStarts: '[]',
        ddiActionType,
        windows: JSON.stringify(windows.windows),
        ramp: ramp === null ? null : JSON.stringify(ramp.ramp),
      });
      await this.record(manager, created, 'rollout.created', plan.actor);
      return created;
    });
    return this.view(rollout);
  }

  /**
   * Applies an operator action (`start`, `pause`, `resume`, `cancel`). Starting gives every
   * registered member of the group of the firmware's device type the state `pending` in its wave
   * (by device id, see waves.ts) and starts wave 1; resuming clears the reason of an automatic pause.
   * @throws NotFoundException for another tenant's or an unknown rollout; ConflictException
   *   naming both states when the transition is not allowed.
   * @param actor who applies it (recorded on the ledger).
   */
  async apply(tenantId: number, id: number, action: Exclude<RolloutAction, 'finish' | 'reopen'>, actor?: Actor): Promise<RolloutView> {
    const rollout = await this.unitOfWork.transaction(async (manager) => {
      const current = await this.rollouts.findRollout(tenantId, id, manager);
      if (!current) throw new NotFoundException('Rollout not found');
      const next = transition(current.status, action);
      if (!next) throw new ConflictException(`Rollout ${id} cannot go from ${current.status} to ${actionTarget(action)}`);
      const changed: Rollout = { ...current, status: next };
      if (action === 'resume') changed.pauseReason = null;
      await this.rollouts.update(manager, id, { status: next, pauseReason: changed.pauseReason });
      await this.record(manager, changed, `rollout.${next === 'active' && action === 'start' ? 'started' : pastTense(action)}`, actor);
      if (action === 'start') {
        await this.placeDevices(manager, changed);
        await this.startWave(manager, changed, 1, actor);
      }
      if (action === 'start' || action === 'resume') await this.settle(manager, id, tenantId);
      return (await this.rollouts.findRollout(tenantId, id, manager))!;
    });
    return this.view(rollout);
  }

  /**
   * Starts the next wave of a rollout whose approval is `manual` and whose current wave reached
   * its success threshold (`awaiting_approval`).
   * @throws NotFoundException for another tenant's or an unknown rollout; ConflictException
   *   `Rollout <id> has no wave waiting for approval`.
   */
  async approve(tenantId: number, id: number, actor?: Actor): Promise<RolloutView> {
    const rollout = await this.unitOfWork.transaction(async (manager) => {
      const current = await this.rollouts.findRollout(tenantId, id, manager);
      if (!current) throw new NotFoundException('Rollout not found');
      if (!current.awaitingApproval || current.status === 'cancelled' || current.status === 'finished') {
        throw new ConflictException(`Rollout ${id} has no wave waiting for approval`);
      }
      await this.startWave(manager, current, current.currentWave + 1, actor);
      await this.settle(manager, id, tenantId);
      return (await this.rollouts.findRollout(tenantId, id, manager))!;
    });
    return this.view(rollout);
  }

  /**
   * Offers the rollout again to its failed and fell-back devices: they go back to `pending` (their
   * success records are dropped, so a new report answers `Successfully inserted!` again). A
   * finished rollout becomes active again; a paused one stays paused until resumed.
   * @returns how many devices were retried, and the rollout.
   * @throws NotFoundException for another tenant's or an unknown rollout; ConflictException
   *   `Rollout <id> is draft: there is nothing to retry` (also cancelled).
   */
  async retry(tenantId: number, id: number, actor?: Actor): Promise<{ retried: number; rollout: RolloutView }> {
    const { retried, rollout } = await this.unitOfWork.transaction(async (manager) => {
      const current = await this.rollouts.findRollout(tenantId, id, manager);
      if (!current) throw new NotFoundException('Rollout not found');
      if (current.status === 'draft' || current.status === 'cancelled') {
        throw new ConflictException(`Rollout ${id} is ${current.status}: there is nothing to retry`);
      }
      const count = await this.states.reset(manager, id, RETRIED_STATES, this.clock.now());
      const status = count > 0 ? (transition(current.status, 'reopen') ?? current.status) : current.status;
      if (status !== current.status) await this.rollouts.update(manager, id, { status });
      const changed = { ...current, status };
      await this.ledger.append(manager, {
        tenantId,
        type: 'rollout.retried',
        subject: Subject.rollout(id),
        actor,
        state: { ...snapshot(changed), retried: count },
      });
      return { retried: count, rollout: changed };
    });
    return { retried, rollout: await this.view(rollout) };
  }

  /**
   * After devices of a rollout changed state (inside that transaction): carries out what the
   * rollout policy decides ({@link nextStep}): finish, pause with the reason kept and recorded,
   * wait for approval, or start the next wave (and decide again). Every step is a guarded update,
   * so concurrent reports (also on other instances) take each step once.
   * @param changedWave the wave whose devices changed, if known: only it is held against the
   *   error threshold; otherwise every started wave is.
   */
  async settle(manager: EntityManager, rolloutId: number, tenantId: number, changedWave?: number): Promise<void> {
    for (;;) {
      const rollout = await this.rollouts.findRollout(tenantId, rolloutId, manager);
      if (!rollout) return;
      const waveCount = wavesOf(rollout).length;
      // The kept counts decide; a finish is checked against every member of the group first
      // (targets without a state yet, members not registered: both hold it).
      let step = nextStep(rollout, { waves: await this.states.waveCounts(rollout.id, waveCount, manager), notRegistered: 0 }, changedWave);
      if (step.kind === 'finish') step = nextStep(rollout, await this.states.progress(rollout.id, waveCount, manager), changedWave);
      switch (step.kind) {
        case 'none':
          return;
        case 'finish':
          if (await this.rollouts.guardedUpdate(manager, rollout.id, { status: ['active', 'paused'] }, { status: 'finished' })) {
            await this.record(manager, { ...rollout, status: 'finished' }, 'rollout.finished');
          }
          return;
        case 'pause':
          if (
            await this.rollouts.guardedUpdate(manager, rollout.id, { status: ['active'] }, { status: 'paused', pauseReason: step.reason })
          ) {
            await this.record(manager, { ...rollout, status: 'paused', pauseReason: step.reason }, 'rollout.paused');
          }
          return;
        case 'await_approval':
          if (
            await this.rollouts.guardedUpdate(
              manager,
              rollout.id,
              { currentWave: step.wave, awaitingApproval: false },
              { awaitingApproval: true },
            )
          ) {
            await this.record(manager, { ...rollout, awaitingApproval: true }, 'rollout.wave_passed');
          }
          return;
        case 'start_wave':
          if (!(await this.startWave(manager, rollout, step.wave))) return;
          changedWave = undefined;
      }
    }
  }

  /** Gives the rollout's targets (policy/targets.ts) their `pending` state and wave, in the stable order (device id). */
  private async placeDevices(manager: EntityManager, rollout: Rollout): Promise<void> {
    const ids = await this.states.targetedDeviceIds(manager, rollout.id);
    const ends = waveEnds(wavesOf(rollout), ids.length);
    const devices = ids.map((deviceId, index) => ({ deviceId, wave: waveOf(index, ends) }));
    await this.states.insertPending(manager, rollout.id, devices, this.clock.now());
  }

  /** Makes `wave` the current wave (a guarded update from the wave before) and records it; whether it started here. */
  private async startWave(manager: EntityManager, rollout: Rollout, wave: number, actor?: Actor): Promise<boolean> {
    const starts = [...(JSON.parse(rollout.waveStarts) as number[]).slice(0, wave - 1), this.clock.now()];
    const from = wave === 1 ? {} : { currentWave: wave - 1 };
    const changes = { currentWave: wave, waveStarts: JSON.stringify(starts), awaitingApproval: false };
    if (!(await this.rollouts.guardedUpdate(manager, rollout.id, from, changes))) return false;
    await this.ledger.append(manager, {
      tenantId: rollout.tenantId,
      type: 'rollout.wave_started',
      subject: Subject.rollout(rollout.id),
      actor,
      state: { ...snapshot({ ...rollout, ...changes }), wave },
    });
    return true;
  }

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
  ): Promise<Counted<RolloutDeviceRow>> {
    const rollout = await this.rollouts.findRollout(tenantId, id);
    if (!rollout) throw new NotFoundException('Rollout not found');
    await this.offers.flush();
    const [items, total] = await this.states.pageDevices(id, filter, slice.offset, slice.limit);
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
    const unsettled = devices.targeted - devices.confirmed - devices.failed - devices.fell_back;
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
      targeted: devices.targeted,
      confirmed: devices.confirmed,
      unsettled,
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

  private async record(manager: EntityManager, rollout: Rollout, type: string, actor?: Actor): Promise<void> {
    await this.ledger.append(manager, {
      tenantId: rollout.tenantId,
      type,
      subject: Subject.rollout(rollout.id),
      actor,
      state: { ...snapshot(rollout), ...planned(rollout) },
    });
  }
}

/** A rollout's wave bounds (one wave `100%` when it has none). */
export function wavesOf(rollout: Pick<Rollout, 'waves'>): WaveBound[] {
  const bounds = JSON.parse(rollout.waves) as unknown;
  return Array.isArray(bounds) && bounds.length > 0 ? bounds.map(String) : ['100%'];
}

type Snapshot = Omit<
  RolloutView,
  | 'targeted'
  | 'confirmed'
  | 'unsettled'
  | 'notApplicable'
  | 'notRegistered'
  | 'updated'
  | 'pending'
  | 'lastActivity'
  | 'devices'
  | 'waves'
  | 'windows'
  | 'windowOpen'
  | 'nextWindowAt'
  | 'windowClosesAt'
  | 'ramp'
>;

/** The windows and ramp of a rollout for the ledger, only where it has them (entries of rollouts without stay as they were). */
function planned(rollout: Rollout): { windows?: MaintenanceWindow[]; ramp?: RampPlan } {
  const windows = storedWindowsOf(rollout.windows);
  const ramp = storedRampOf(rollout.ramp);
  return { ...(windows.length > 0 ? { windows } : {}), ...(ramp !== null ? { ramp } : {}) };
}

/** The plan and state of a rollout, as operators see it and as the ledger records it. */
function snapshot(rollout: Rollout): Snapshot {
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

function pastTense(action: RolloutAction): string {
  return { start: 'started', pause: 'paused', resume: 'resumed', cancel: 'cancelled', finish: 'finished', reopen: 'reopened' }[action];
}

function actionTarget(action: RolloutAction): string {
  return { start: 'active', pause: 'paused', resume: 'active', cancel: 'cancelled', finish: 'finished', reopen: 'active' }[action];
}
