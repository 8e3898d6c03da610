import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { IsNull, type EntityManager } from 'typeorm';
import { FieldException } from '#src/platform/http/http-error.filter.js';
import { Clock, parseUtc } from '#src/platform/common/clock.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import type { Actor } from '#src/domain/ledger/ledger-actor.js';
import { LedgerService, Subject } from '#src/domain/ledger/ledger.service.js';
import type { Firmware } from '#src/domain/firmware/firmware.entity.js';
import { FirmwareService } from '#src/domain/firmware/firmware.service.js';
import { GroupService } from '#src/domain/group/group.service.js';
import { RETRIED_STATES } from './policy/device-states.js';
import { nextStep, sumCounts } from './policy/next-step.js';
import { transition, type RolloutAction } from './policy/lifecycle.js';
import { parseWavePlan } from './policy/waves.js';
import { parseWindows } from './policy/windows.js';
import { parseRamp } from './policy/ramp.js';
import { criterionWire, parseAbortCriteria, storedAbortCriteriaOf } from './policy/abort.js';
import {
  parseRollback,
  rollbackFiring,
  rollbackReason,
  rollbackStates,
  rollbackWire,
  storedRollbackOf,
  type RollbackFiring,
  type RollbackPolicy,
} from './policy/rollback.js';
import { parseTimeouts } from './policy/timeouts.js';
import { versionSkip, type OfferWhen } from './policy/decision.js';
import { DeviceStateRepository } from './device-state.repository.js';
import { DDI_ACTION_TYPES, type DdiActionType, type Rollout, type RolloutApproval } from './rollout.entity.js';
import { RolloutRepository } from './rollout.repository.js';
import { RolloutProgressService, type RolloutView } from './rollout-progress.service.js';
import { planned, snapshot, wavesOf } from './rollout-snapshot.js';

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
  /** Which targets are offered the firmware (policy/decision.ts); default `newer`. */
  offerWhen?: OfferWhen;
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
  /**
   * Abort criteria as the operator API takes them, `{failure, threshold_percentage, min_finished,
   * action}` each (policy/abort.ts {@link parseAbortCriteria}); default none.
   */
  abortCriteria?: unknown;
  /** Timeouts as the operator API takes them, `{offered?, downloading?, installed?}` seconds (policy/timeouts.ts); default none. */
  timeouts?: unknown;
  /**
   * The rollback policy as the operator API takes it, `{firmware_id, failed_count?,
   * failed_percentage?, scope?}` (policy/rollback.ts {@link parseRollback}); default none.
   */
  rollback?: unknown;
  /** Who plans it (recorded on the ledger). */
  actor?: Actor;
}

/** The run state of a rollout that has not started: wave 1 next, nothing waiting, no pause, no rollback yet. */
const NOT_STARTED = { currentWave: 1, awaitingApproval: false, pauseReason: null, waveStarts: '[]', rollbackRolloutId: null } as const;

/** Success threshold of a rollout planned without one. */
export const DEFAULT_SUCCESS_THRESHOLD = 0.9;

/**
 * Operators' side of rollouts: plan and lifecycle (create, start, pause, resume, cancel, approve,
 * retry), and the wave engine that carries out the policy's decisions as devices change state
 * ({@link settle}). Every change goes to the ledger; what operators read is {@link RolloutProgressService}.
 */
@Injectable()
export class RolloutPlanService {
  constructor(
    private readonly rollouts: RolloutRepository,
    private readonly states: DeviceStateRepository,
    private readonly progress: RolloutProgressService,
    private readonly groups: GroupService,
    private readonly firmware: FirmwareService,
    private readonly unitOfWork: UnitOfWork,
    private readonly ledger: LedgerService,
    private readonly clock: Clock,
  ) {}

  /**
   * Plans a rollout in state `draft`.
   * @throws FieldException (400 naming the field) for a bad priority, start date, name, wave plan,
   *   threshold, window, ramp, abort criterion or timeout; NotFoundException for an
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
    const abort = parseAbortCriteria(plan.abortCriteria ?? []);
    if ('error' in abort) throw new FieldException(abort.error.field, abort.error.message);
    const timeouts = parseTimeouts(plan.timeouts ?? {});
    if ('error' in timeouts) throw new FieldException(timeouts.error.field, timeouts.error.message);
    const rollback = plan.rollback === undefined || plan.rollback === null ? null : parseRollback(plan.rollback);
    if (rollback !== null && 'error' in rollback) throw new FieldException(rollback.error.field, rollback.error.message);
    const firmware = await this.firmware.require(plan.tenantId, plan.firmwareId);
    if (rollback !== null) await this.checkRollbackFirmware(plan.tenantId, firmware, rollback.policy);
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
        offerWhen: plan.offerWhen ?? 'newer',
        createdAt: this.clock.now(),
        waves: JSON.stringify(waves),
        successThreshold,
        errorThreshold,
        approval: plan.approval ?? 'auto',
        ...NOT_STARTED,
        ddiActionType,
        windows: JSON.stringify(windows.windows),
        ramp: ramp === null ? null : JSON.stringify(ramp.ramp),
        abortCriteria: JSON.stringify(abort.criteria),
        timeoutOffered: timeouts.timeouts.offered,
        timeoutDownloading: timeouts.timeouts.downloading,
        timeoutInstalled: timeouts.timeouts.installed,
        rollback: rollback === null ? null : JSON.stringify(rollback.policy),
        rollbackOf: null,
      });
      await this.record(manager, created, 'rollout.created', plan.actor);
      return created;
    });
    return this.progress.view(rollout);
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
      // Targets first, while the rollout is still a draft: on SQLite requests are served between
      // slices of them, inside this transaction, and must not find it active before it is whole.
      if (action === 'start') {
        await this.placeDevices(manager, changed, true);
        await this.settleUnoffered(manager, changed);
      }
      await this.rollouts.update(manager, id, { status: next, pauseReason: changed.pauseReason });
      await this.record(manager, changed, `rollout.${next === 'active' && action === 'start' ? 'started' : pastTense(action)}`, actor);
      if (action === 'start') await this.startWave(manager, changed, 1, actor);
      if (action === 'start' || action === 'resume') await this.settle(manager, id, tenantId);
      return (await this.rollouts.findRollout(tenantId, id, manager))!;
    });
    return this.progress.view(rollout);
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
    return this.progress.view(rollout);
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
    return { retried, rollout: await this.progress.view(rollout) };
  }

  /**
   * After devices of a rollout changed state (inside that transaction): carries out what the
   * rollout policy decides ({@link nextStep}): finish, pause or cancel on an abort criterion (the
   * reason kept, the criterion and its numbers recorded), pause on the error threshold with the
   * reason kept and recorded, wait for approval, or start the next wave (and decide again). Every step is a guarded update,
   * so concurrent reports (also on other instances) take each step once.
   * @param changedWave the wave whose devices changed, if known: only it is held against the
   *   error threshold; otherwise every started wave is.
   */
  async settle(manager: EntityManager, rolloutId: number, tenantId: number, changedWave?: number): Promise<void> {
    for (;;) {
      const rollout = await this.rollouts.findRollout(tenantId, rolloutId, manager);
      if (!rollout) return;
      const waveCount = wavesOf(rollout).length;
      const settling = { ...rollout, abortCriteria: storedAbortCriteriaOf(rollout.abortCriteria) };
      const kept = await this.states.waveCounts(rollout.id, waveCount, manager);
      // A rollback policy that fires wins over every other rule (docs/decisions.md §10.4).
      const policy = rollout.status === 'active' && rollout.rollbackRolloutId == null ? storedRollbackOf(rollout.rollback) : null;
      const firing = policy === null ? null : rollbackFiring(policy, sumCounts(kept));
      if (policy !== null && firing !== null) {
        await this.rollBack(manager, rollout, policy, firing);
        return;
      }
      // The kept counts decide; a finish is checked against every member of the group first
      // (targets without a state yet, members not registered: both hold it).
      let step = nextStep(settling, { waves: kept, notRegistered: 0 }, changedWave);
      if (step.kind === 'finish') step = nextStep(settling, await this.states.progress(rollout.id, waveCount, manager), changedWave);
      switch (step.kind) {
        case 'none':
          return;
        case 'finish':
          if (await this.rollouts.guardedUpdate(manager, rollout.id, { status: ['active', 'paused'] }, { status: 'finished' })) {
            await this.record(manager, { ...rollout, status: 'finished' }, 'rollout.finished');
          }
          return;
        case 'abort': {
          const status = step.action === 'pause' ? 'paused' : 'cancelled';
          if (await this.rollouts.guardedUpdate(manager, rollout.id, { status: ['active'] }, { status, pauseReason: step.reason })) {
            const { criterion, finished, failures, percentage } = step.firing;
            await this.record(manager, { ...rollout, status, pauseReason: step.reason }, `rollout.${status}`, undefined, {
              abort: { criterion: criterionWire(criterion), finished, failures, percentage },
            });
          }
          return;
        }
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

  /**
   * The rollback firmware a plan names must be the tenant's, of the rollout's device type, another
   * than the rollout's, and marked as a rollback target (docs/decisions.md §10.4).
   * @throws FieldException (400, field `rollback.firmware_id`) naming what is wrong.
   */
  private async checkRollbackFirmware(tenantId: number, firmware: Firmware, policy: RollbackPolicy): Promise<void> {
    const field = 'rollback.firmware_id';
    const target = await this.firmware.find(tenantId, policy.firmwareId);
    if (target === null) throw new FieldException(field, `${field} names no firmware of the tenant (${policy.firmwareId})`);
    if (target.id === firmware.id) throw new FieldException(field, `${field} must name another firmware than the rollout's`);
    if (target.deviceType !== firmware.deviceType) {
      throw new FieldException(
        field,
        `${field} must be firmware for ${firmware.deviceType} (firmware ${target.id} is for ${target.deviceType})`,
      );
    }
    if (!target.rollbackTarget) {
      throw new FieldException(
        field,
        `${field}: firmware ${target.id} (${target.version}) is not marked as a rollback target (PATCH its firmware with {"rollback_target": true})`,
      );
    }
  }

  /**
   * Carries out a rollback policy that fired (docs/decisions.md §10.4), in the settle transaction:
   * the rollout is cancelled with the reason kept and the numbers recorded; its devices in the
   * policy's scope become the members of a new static group, and a rollout of the rollback
   * firmware to that group (a downgrade, one wave, no windows or ramp: a rollback is urgent)
   * starts at once, linked both ways. Its devices that already run the rollback version are
   * `confirmed` there at once. A guarded update: on several instances it happens once.
   */
  private async rollBack(manager: EntityManager, rollout: Rollout, policy: RollbackPolicy, firing: RollbackFiring): Promise<void> {
    const reason = rollbackReason(policy, firing);
    const from = { status: ['active'], rollbackRolloutId: IsNull() };
    if (!(await this.rollouts.guardedUpdate(manager, rollout.id, from, { status: 'cancelled', pauseReason: reason }))) return;
    const now = this.clock.now();
    const firmware = await this.firmware.require(rollout.tenantId, policy.firmwareId, manager);
    const members = await this.states.macsIn(manager, rollout.id, rollbackStates(policy.scope));
    const group = await this.groups.createWithin(manager, rollout.tenantId, `rollback of rollout ${rollout.id}`, members);
    const created = await this.rollouts.insertRollout(manager, {
      tenantId: rollout.tenantId,
      name: `${rollout.name} (rollback)`.slice(0, 128),
      firmwareId: firmware.id,
      groupId: group.id,
      priority: rollout.priority,
      startDate: now,
      status: 'active',
      downgrade: true,
      offerWhen: 'newer',
      createdAt: now,
      waves: JSON.stringify(['100%']),
      successThreshold: DEFAULT_SUCCESS_THRESHOLD,
      errorThreshold: null,
      approval: 'auto',
      ...NOT_STARTED,
      ddiActionType: rollout.ddiActionType,
      windows: '[]',
      ramp: null,
      abortCriteria: '[]',
      timeoutOffered: null,
      timeoutDownloading: null,
      timeoutInstalled: null,
      rollback: null,
      rollbackOf: rollout.id,
    });
    await this.rollouts.update(manager, rollout.id, { rollbackRolloutId: created.id });
    const cancelled = { ...rollout, status: 'cancelled' as const, pauseReason: reason, rollbackRolloutId: created.id };
    await this.record(manager, cancelled, 'rollout.cancelled', undefined, {
      rollback: {
        ...rollbackWire(policy),
        failures: firing.failures,
        targeted: firing.targeted,
        percentage: firing.percentage,
        rolloutId: created.id,
      },
    });
    await this.record(manager, created, 'rollout.created');
    await this.record(manager, created, 'rollout.started');
    await this.placeDevices(manager, created);
    await this.startWave(manager, created, 1);
    for (const deviceId of await this.states.pendingOnVersion(manager, created.id, firmware.version)) {
      await this.states.move(manager, created.id, deviceId, 'confirmed', now, {
        reportedVersion: firmware.version,
        message: `already runs ${firmware.version}`,
      });
    }
    await this.settle(manager, created.id, created.tenantId);
  }

  /**
   * Settles, when the rollout starts, the targets its version rule will never offer it to, by the
   * version they run (policy/decision.ts {@link versionSkip}, docs/decisions.md §10.5): `confirmed`
   * when they already run the firmware's version, `skipped` (anti-rollback) when they run one that
   * orders after it; each with the decision's reason. A fleet runs few versions: one statement each.
   */
  private async settleUnoffered(manager: EntityManager, rollout: Rollout): Promise<void> {
    const firmware = await this.firmware.require(rollout.tenantId, rollout.firmwareId, manager);
    const now = this.clock.now();
    for (const running of await this.states.pendingVersions(manager, rollout.id)) {
      const skip = versionSkip(running, { version: firmware.version, downgrade: rollout.downgrade, offerWhen: rollout.offerWhen });
      if (skip !== null) await this.states.settleOnVersion(manager, rollout.id, running, skip.settleAs, now, skip.reason);
    }
  }

  /**
   * Gives the rollout's targets (policy/targets.ts) their `pending` state and wave, in the stable
   * order (device id); `yieldBetweenSlices`: let requests run between slices on SQLite
   * ({@link DeviceStateRepository.placeTargets}), only while the rollout is not active yet.
   */
  private async placeDevices(manager: EntityManager, rollout: Rollout, yieldBetweenSlices = false): Promise<void> {
    await this.states.placeTargets(manager, rollout.id, wavesOf(rollout), this.clock.now(), yieldBetweenSlices);
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

  private async record(manager: EntityManager, rollout: Rollout, type: string, actor?: Actor, extra: object = {}): Promise<void> {
    await this.ledger.append(manager, {
      tenantId: rollout.tenantId,
      type,
      subject: Subject.rollout(rollout.id),
      actor,
      state: { ...snapshot(rollout), ...planned(rollout), ...extra },
    });
  }
}

function pastTense(action: RolloutAction): string {
  return { start: 'started', pause: 'paused', resume: 'resumed', cancel: 'cancelled', finish: 'finished', reopen: 'reopened' }[action];
}

function actionTarget(action: RolloutAction): string {
  return { start: 'active', pause: 'paused', resume: 'active', cancel: 'cancelled', finish: 'finished', reopen: 'active' }[action];
}
