import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Clock, formatUtc, parseUtc } from '#src/common/clock.js';
import type { Counted, Slice } from '#src/common/paging.js';
import type { Actor } from '#src/ledger/ledger-actor.js';
import { LedgerService, Subject } from '#src/ledger/ledger.service.js';
import { UnitOfWork } from '#src/database/unit-of-work.js';
import { FirmwareService } from '#src/firmware/firmware.service.js';
import { transition, type RolloutAction } from './rollout-lifecycle.js';
import type { Rollout, RolloutStatus } from './rollout.entity.js';
import { GroupService } from '#src/group/group.service.js';
import { RolloutRepository } from './rollout.repository.js';

/** Largest `priority` number; 1 is most urgent (CONTRACT.md §8). */
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
  /** Who plans it (recorded on the ledger). */
  actor?: Actor;
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
  targeted: number;
  updated: number;
  pending: number;
  lastActivity: string | null;
}

/** Operators' side of rollouts: plan, lifecycle, progress. Every change goes to the ledger. */
@Injectable()
export class RolloutPlanService {
  constructor(
    private readonly rollouts: RolloutRepository,
    private readonly groups: GroupService,
    private readonly firmware: FirmwareService,
    private readonly unitOfWork: UnitOfWork,
    private readonly ledger: LedgerService,
    private readonly clock: Clock,
  ) {}

  /**
   * Plans a rollout in state `draft`.
   * @throws BadRequestException for a bad priority or start date; NotFoundException for an
   *   unknown firmware or group of the tenant.
   */
  async create(plan: PlanRollout): Promise<RolloutView> {
    if (!Number.isSafeInteger(plan.priority) || plan.priority < 1 || plan.priority > MAX_PRIORITY) {
      throw new BadRequestException(`priority must be a whole number from 1 to ${MAX_PRIORITY}`);
    }
    const startDate = parseUtc(plan.startDate);
    if (startDate === null) throw new BadRequestException('start date must be "YYYY-MM-DD HH:MM:SS" (UTC)');
    if (plan.name.length < 1 || plan.name.length > 128) throw new BadRequestException('name must be 1 to 128 characters');
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
      });
      await this.record(manager, created, 'rollout.created', plan.actor);
      return created;
    });
    return this.view(rollout);
  }

  /**
   * Applies an operator action (`start`, `pause`, `resume`, `cancel`).
   * @throws NotFoundException for another tenant's or an unknown rollout; ConflictException
   *   naming both states when the transition is not allowed.
   * @param actor who applies it (recorded on the ledger).
   */
  async apply(tenantId: number, id: number, action: Exclude<RolloutAction, 'finish'>, actor?: Actor): Promise<RolloutView> {
    const rollout = await this.unitOfWork.transaction(async (manager) => {
      const current = await this.rollouts.findRollout(tenantId, id, manager);
      if (!current) throw new NotFoundException('Rollout not found');
      const next = transition(current.status, action);
      if (!next) throw new ConflictException(`Rollout ${id} cannot go from ${current.status} to ${actionTarget(action)}`);
      await this.rollouts.setStatus(manager, id, next);
      const changed = { ...current, status: next };
      await this.record(manager, changed, `rollout.${next === 'active' && action === 'start' ? 'started' : pastTense(action)}`, actor);
      return changed;
    });
    return this.view(rollout);
  }

  /**
   * Finishes a rollout once every targeted device has reported success (inside the report's
   * transaction). The state is read again in that transaction: a rollout cancelled after the
   * report looked it up stays cancelled.
   */
  async finishIfComplete(manager: EntityManager, rollout: Rollout): Promise<void> {
    const current = await this.rollouts.findRollout(rollout.tenantId, rollout.id, manager);
    if (!current || !transition(current.status, 'finish')) return;
    const { targeted, updated } = await this.rollouts.progress(current, manager);
    if (updated < targeted) return;
    await this.rollouts.setStatus(manager, current.id, 'finished');
    await this.record(manager, { ...current, status: 'finished' }, 'rollout.finished');
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

  /** @throws NotFoundException for another tenant's or an unknown rollout. */
  async get(tenantId: number, id: number): Promise<RolloutView> {
    const rollout = await this.rollouts.findRollout(tenantId, id);
    if (!rollout) throw new NotFoundException('Rollout not found');
    return this.view(rollout);
  }

  private async view(rollout: Rollout): Promise<RolloutView> {
    const { targeted, updated, lastActivity } = await this.rollouts.progress(rollout);
    return {
      ...snapshot(rollout),
      targeted,
      updated,
      pending: Math.max(0, targeted - updated),
      lastActivity: lastActivity === null ? null : new Date(lastActivity).toISOString(),
    };
  }

  private async record(manager: EntityManager, rollout: Rollout, type: string, actor?: Actor): Promise<void> {
    await this.ledger.append(manager, {
      tenantId: rollout.tenantId,
      type,
      subject: Subject.rollout(rollout.id),
      actor,
      state: { ...snapshot(rollout) },
    });
  }
}

/** The plan and state of a rollout, as operators see it and as the ledger records it. */
function snapshot(rollout: Rollout): Omit<RolloutView, 'targeted' | 'updated' | 'pending' | 'lastActivity'> {
  return {
    id: rollout.id,
    name: rollout.name,
    status: rollout.status,
    firmwareId: rollout.firmwareId,
    groupId: rollout.groupId,
    priority: rollout.priority,
    startDate: formatUtc(rollout.startDate),
    downgrade: rollout.downgrade,
  };
}

function pastTense(action: RolloutAction): string {
  return { start: 'started', pause: 'paused', resume: 'resumed', cancel: 'cancelled', finish: 'finished' }[action];
}

function actionTarget(action: RolloutAction): string {
  return { start: 'active', pause: 'paused', resume: 'active', cancel: 'cancelled', finish: 'finished' }[action];
}
