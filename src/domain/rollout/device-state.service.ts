import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Clock } from '#src/platform/common/clock.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { LedgerService, Subject } from '#src/domain/ledger/ledger.service.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import { DeviceVersionReports } from '#src/domain/device/device-version-reports.js';
import { GroupChanges, type MembersChange } from '#src/domain/group/group-changes.js';
import { afterInstalled, afterSuccessReport, REACHED_FROM, type DeviceState } from './policy/device-states.js';
import { INSTALLING_FROM, WITHDRAWN_FROM } from './policy/device-actions.js';
import { timeoutMessage } from './policy/timeouts.js';
import { DeviceStateRepository, type InstalledRollout, type MoveDetails } from './device-state.repository.js';
import { OfferWriter } from './offer-writer.js';
import { RolloutPlanService } from './rollout-plan.service.js';
import type { Rollout } from './rollout.entity.js';
import { RolloutRepository } from './rollout.repository.js';
import { errorMessage } from '#src/platform/logging/error-message.js';

/** States a skip decision settles a device from: its attempt has not reached `installed`. */
const SKIPPED_FROM = REACHED_FROM.skipped;

/** Most devices the confirmation sweep moves per round. */
const SWEEP_BATCH = 500;

/** A device and its tenant, as state changes need them. */
export interface TrackedDevice {
  id: number;
  tenantId: number;
  mac: string;
}

/**
 * Moves targeted devices through their states in rollouts (docs/decisions.md §10) as the
 * devices' requests show it, and lets the rollout react (waves, thresholds, finish: see
 * {@link RolloutPlanService.settle}) in the same transaction.
 *
 * Offers come from the next-rollout answer, the hot path of devices: they are written behind
 * ({@link OfferWriter}). Every other change is written before the request that caused it is
 * answered, after the offers held back.
 */
@Injectable()
export class DeviceStateService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('RolloutStates');
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<number> | undefined;

  constructor(
    private readonly states: DeviceStateRepository,
    private readonly rollouts: RolloutRepository,
    private readonly plans: RolloutPlanService,
    private readonly ledger: LedgerService,
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
    private readonly versionReports: DeviceVersionReports,
    private readonly offers: OfferWriter,
    private readonly groupChanges: GroupChanges,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.versionReports.listen((tenantId, mac, version) => this.registered(tenantId, mac, version));
    this.groupChanges.listen((groupId, change) => this.groupChanged(groupId, change));
    const every = Math.min(60_000, Math.max(1000, (this.config.rolloutConfirmationWindowSeconds * 1000) / 4));
    this.sweepTimer = setInterval(() => {
      this.sweep().catch((error: unknown) => this.logger.error(`confirmation sweep failed: ${errorMessage(error)}`));
    }, every).unref();
  }

  /**
   * The next-rollout answer named the rollout to a device that is `pending` in it or has no
   * state: written behind ({@link OfferWriter}).
   */
  offered(rolloutId: number, device: { id: number }, lastWave: number): void {
    this.offers.offered(rolloutId, device.id, lastWave);
  }

  /** Writes the offers held back now. */
  flushOffers(): Promise<void> {
    return this.offers.flush();
  }

  /** The device requested firmware `firmwareId` from the IPFS component: `downloading` in the active rollouts of it that offered it. */
  async downloading(device: { id: number }, firmwareId: number): Promise<void> {
    await this.flushOffers();
    await this.unitOfWork.transaction(async (manager) => {
      const now = this.clock.now();
      for (const rolloutId of await this.states.awaitingDownload(manager, device.id, firmwareId)) {
        await this.states.move(manager, rolloutId, device.id, 'downloading', now);
      }
    });
  }

  /**
   * A success report for `rollout` (inside the report's transaction): `confirmed` at once when it
   * carries the target version, else `installed`.
   */
  async successReported(
    manager: EntityManager,
    rollout: Rollout,
    device: TrackedDevice,
    version: string,
    target: string,
    lastWave: number,
  ): Promise<void> {
    const now = this.clock.now();
    await this.states.ensure(manager, rollout.id, device.id, lastWave, now);
    const to = afterSuccessReport(version, target);
    if (await this.states.move(manager, rollout.id, device.id, to, now, { reportedVersion: version })) {
      await this.afterMove(manager, rollout.id, device, to, version);
    }
  }

  /**
   * A failure report for `rollout`: `failed` with the device's message, unless the device is
   * already confirmed, failed or fell back.
   * @returns whether the device moved to `failed`.
   */
  async failureReported(
    rollout: Rollout,
    device: TrackedDevice,
    version: string,
    message: string | null,
    lastWave: number,
  ): Promise<boolean> {
    await this.flushOffers();
    return this.unitOfWork.transaction(async (manager) => {
      const now = this.clock.now();
      await this.states.ensure(manager, rollout.id, device.id, lastWave, now);
      const moved = await this.states.move(manager, rollout.id, device.id, 'failed', now, { reportedVersion: version, message });
      if (moved) await this.afterMove(manager, rollout.id, device, 'failed', version);
      return moved;
    });
  }

  /**
   * A device that reports per action says it is installing `rollout`: `installed` if it fetched
   * the firmware (`downloading`, policy/device-actions.ts {@link INSTALLING_FROM}); otherwise
   * nothing changes.
   * @returns whether the device moved.
   */
  async installing(rollout: Rollout, device: TrackedDevice, lastWave: number): Promise<boolean> {
    await this.flushOffers();
    return this.unitOfWork.transaction(async (manager) => {
      const now = this.clock.now();
      await this.states.ensure(manager, rollout.id, device.id, lastWave, now);
      const moved = await this.states.move(manager, rollout.id, device.id, 'installed', now, {}, INSTALLING_FROM);
      if (moved) await this.afterMove(manager, rollout.id, device, 'installed', '');
      return moved;
    });
  }

  /**
   * A device reports it is downloading the rollout's firmware (a Mender `downloading` status,
   * docs/decisions.md §13): `downloading` from `pending` or `offered`; otherwise nothing changes.
   * @returns whether the device moved.
   */
  async downloadReported(rollout: Rollout, device: TrackedDevice, lastWave: number): Promise<boolean> {
    await this.flushOffers();
    return this.unitOfWork.transaction(async (manager) => {
      const now = this.clock.now();
      await this.states.ensure(manager, rollout.id, device.id, lastWave, now);
      return this.states.move(manager, rollout.id, device.id, 'downloading', now);
    });
  }

  /**
   * The rollout will never update the device (a `skip` decision, policy/decision.ts,
   * docs/decisions.md §10.5): `confirmed` there when it already runs the firmware's version, else
   * `skipped`, from `pending`, `offered` or `downloading` (or no state: a late joiner), with the
   * decision's reason as its message; the rollout then settles (it may finish).
   * @param version the version the device reports running.
   * @returns whether the device moved.
   */
  async skipped(
    rolloutId: number,
    device: TrackedDevice,
    to: 'confirmed' | 'skipped',
    version: string,
    reason: string,
    lastWave: number,
  ): Promise<boolean> {
    await this.flushOffers();
    return this.unitOfWork.transaction(async (manager) => {
      const now = this.clock.now();
      await this.states.ensure(manager, rolloutId, device.id, lastWave, now);
      const details = { reportedVersion: version, message: reason };
      const moved = await this.states.move(manager, rolloutId, device.id, to, now, details, SKIPPED_FROM);
      if (moved) await this.afterMove(manager, rolloutId, device, to, version);
      return moved;
    });
  }

  /**
   * Names the cause of a failure the device reported before it sent its log (a Mender deployment
   * log, docs/decisions.md §13): the message of its state, where it is `failed`, becomes `message`.
   */
  async explainFailure(rolloutId: number, deviceId: number, message: string): Promise<void> {
    await this.states.setFailureMessage(rolloutId, deviceId, 'failed', message);
  }

  /**
   * A device acknowledged the cancellation of its action in a paused or cancelled rollout: back to
   * `pending` from `offered` or `downloading` ({@link WITHDRAWN_FROM}), offered again if the rollout
   * resumes.
   * @returns whether the device moved.
   */
  async withdrawn(rollout: Rollout, device: TrackedDevice, message: string): Promise<boolean> {
    await this.flushOffers();
    return this.unitOfWork.transaction(async (manager) => {
      const moved = await this.states.withdraw(manager, rollout.id, device.id, WITHDRAWN_FROM, this.clock.now(), message);
      if (moved) await this.plans.settle(manager, rollout.id, device.tenantId);
      return moved;
    });
  }

  /**
   * A device reported that it holds the firmware of a download-only rollout (docs/decisions.md
   * §12): `confirmed` there, which is all such a rollout asks; its version is not changed.
   * @returns whether the device moved.
   */
  async downloadConfirmed(rollout: Rollout, device: TrackedDevice, version: string, lastWave: number, message: string): Promise<boolean> {
    await this.flushOffers();
    return this.unitOfWork.transaction(async (manager) => {
      const now = this.clock.now();
      await this.states.ensure(manager, rollout.id, device.id, lastWave, now);
      const moved = await this.states.move(manager, rollout.id, device.id, 'confirmed', now, { reportedVersion: version, message });
      if (moved) await this.afterMove(manager, rollout.id, device, 'confirmed', version);
      return moved;
    });
  }

  /**
   * The device's state in the rollout and the message kept with it (offers held back written
   * first); `null` when it has none.
   */
  async attemptOf(rolloutId: number, deviceId: number): Promise<{ state: DeviceState; message: string | null } | null> {
    await this.flushOffers();
    const row = await this.states.find(undefined, rolloutId, deviceId);
    return row ? { state: row.state, message: row.failureMessage } : null;
  }

  /** Keeps a problem the device reported during its open attempt as its message (a later failure names it). */
  noteProblem(rolloutId: number, deviceId: number, message: string): Promise<void> {
    return this.states.noteMessage(rolloutId, deviceId, message);
  }

  /**
   * The device reported the version it runs (a next-rollout request or a registration) while
   * `installed` in `rollouts`: `confirmed` where it is the target version, `fell_back` elsewhere.
   */
  async versionSeen(device: TrackedDevice, version: string, rollouts: readonly InstalledRollout[]): Promise<void> {
    if (rollouts.length === 0) return;
    await this.unitOfWork.transaction(async (manager) => {
      const now = this.clock.now();
      for (const { rolloutId, version: target } of rollouts) {
        const to = afterInstalled(version, target);
        const details: MoveDetails = to === 'fell_back' ? { message: `reported ${version}, not ${target}` } : {};
        if (await this.states.move(manager, rolloutId, device.id, to, now, details))
          await this.afterMove(manager, rolloutId, device, to, version);
      }
    });
  }

  /**
   * Moves devices `installed` for longer than the confirmation window to `failed` (rollouts without
   * a timeout of their own for `installed`), and devices that stayed `offered`, `downloading` or
   * `installed` longer than their rollout's timeout of that state to `timed_out` with a message naming
   * the timeout (docs/decisions.md §10.2), a batch at a time; each rollout settles after (its abort
   * criteria may fire). Safe on several instances at once (each move is a guarded update).
   * @returns how many devices it moved.
   */
  sweep(): Promise<number> {
    this.sweeping ??= this.sweepOnce().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async sweepOnce(): Promise<number> {
    await this.flushOffers();
    return (await this.sweepSilent()) + (await this.sweepTimedOut());
  }

  /** The confirmation window: `installed` → `failed` after ROLLOUT_CONFIRMATION_WINDOW_SECONDS of silence. */
  private async sweepSilent(): Promise<number> {
    const window = this.config.rolloutConfirmationWindowSeconds;
    let moved = 0;
    for (;;) {
      const now = this.clock.now();
      const silent = await this.states.silentSince(now - window * 1000, SWEEP_BATCH);
      if (silent.length === 0) return moved;
      const byRollout = new Map<number, number[]>();
      for (const { rolloutId, deviceId } of silent) {
        const ids = byRollout.get(rolloutId);
        if (ids) ids.push(deviceId);
        else byRollout.set(rolloutId, [deviceId]);
      }
      for (const [rolloutId, deviceIds] of byRollout) {
        await this.unitOfWork.transaction(async (manager) => {
          const rollout = await this.rollouts.findById(manager, rolloutId);
          if (!rollout) return;
          for (const deviceId of deviceIds) {
            const message = `no confirmation within ${window} s after the success report`;
            if (await this.states.move(manager, rolloutId, deviceId, 'failed', now, { message })) moved++;
          }
          await this.plans.settle(manager, rolloutId, rollout.tenantId);
        });
      }
      if (silent.length < SWEEP_BATCH) return moved;
    }
  }

  /** The rollouts' own timeouts: `offered`, `downloading`, `installed` → `timed_out` (policy/timeouts.ts). */
  private async sweepTimedOut(): Promise<number> {
    let moved = 0;
    for (;;) {
      const now = this.clock.now();
      const late = await this.states.timedOut(now, SWEEP_BATCH);
      if (late.length === 0) return moved;
      const byRollout = new Map<number, typeof late>();
      for (const row of late) byRollout.set(row.rolloutId, [...(byRollout.get(row.rolloutId) ?? []), row]);
      let movedNow = 0;
      for (const [rolloutId, rows] of byRollout) {
        await this.unitOfWork.transaction(async (manager) => {
          const rollout = await this.rollouts.findById(manager, rolloutId);
          if (!rollout) return;
          for (const { deviceId, state, seconds } of rows) {
            const message = timeoutMessage(state, seconds);
            if (await this.states.move(manager, rolloutId, deviceId, 'timed_out', now, { message }, [state])) movedNow++;
          }
          await this.plans.settle(manager, rolloutId, rollout.tenantId);
        });
      }
      moved += movedNow;
      // A batch where nothing moved (every device moved on meanwhile) would be read again: stop.
      if (late.length < SWEEP_BATCH || movedNow === 0) return moved;
    }
  }

  /** After a device moved in a rollout: the ledger entry of a confirmation, then the rollout's reaction. */
  private async afterMove(
    manager: EntityManager,
    rolloutId: number,
    device: TrackedDevice,
    to: DeviceState,
    version: string,
  ): Promise<void> {
    const state = await this.states.find(manager, rolloutId, device.id);
    // Appended at the commit (before what the settle records, if anything): the ledger lock every
    // appender waits for is then held for the append only.
    if (to === 'confirmed') {
      await this.ledger.hold(manager, {
        tenantId: device.tenantId,
        type: 'rollout.device_confirmed',
        subject: Subject.rollout(rolloutId),
        state: { rolloutId, mac: device.mac, firmwareVersion: version, wave: state?.wave ?? null },
      });
    }
    await this.plans.settle(manager, rolloutId, device.tenantId, state?.wave);
  }

  /**
   * The members of a group changed: the devices that left it are no targets of its running
   * rollouts any more (their states there go, their history stays), and each of those rollouts
   * settles (it may finish now that members that held it left).
   */
  private async groupChanged(groupId: number, change: MembersChange): Promise<void> {
    const running = await this.rollouts.runningOfGroup(groupId);
    if (running.length === 0) return;
    await this.flushOffers();
    if (change.removed.length > 0)
      await this.unitOfWork.transaction((manager) => this.states.dropLeavers(manager, groupId, change.removed));
    for (const rollout of running) {
      await this.unitOfWork.transaction((manager) => this.plans.settle(manager, rollout.id, rollout.tenantId));
    }
  }

  private async registered(tenantId: number, mac: string, version: string): Promise<void> {
    const installed = await this.states.installedOf(tenantId, mac);
    if (!installed || installed.rollouts.length === 0) return;
    await this.versionSeen({ id: installed.deviceId, tenantId, mac }, version, installed.rollouts);
  }

  /** Stops the sweep; one under way is awaited. */
  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.sweepTimer);
    await this.sweeping?.catch(() => undefined);
  }
}
