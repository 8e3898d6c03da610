import { Injectable, NotFoundException } from '@nestjs/common';
import { Clock } from '#src/platform/common/clock.js';
import { isUniqueViolation } from '#src/platform/common/unique-violation.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import type { Device, DeviceVersion } from '#src/domain/device/device.entity.js';
import { DeviceService } from '#src/domain/device/device.service.js';
import { DeviceStateService, type TrackedDevice } from './device-state.service.js';
import { DeviceStateRepository, type InstalledRollout } from './device-state.repository.js';
import { candidateDecision, chooseNextRollout, type RolloutCandidate } from './policy/next-rollout.js';
import { chooseAction, isAborted, isOpenAction, WITHDRAWN_FROM, type ActionRollout, type DeviceAction } from './policy/device-actions.js';
import type { DeploymentLogLine } from './deployment-log.entity.js';
import { DeploymentLogRepository } from './deployment-log.repository.js';
import type { DeviceState } from './policy/device-states.js';
import { wavesOf } from './rollout-snapshot.js';
import { storedWindowsOf, windowAt, type WindowState } from './policy/windows.js';
import { minuteOf, rampAllowance } from './policy/ramp.js';
import type { Rollout } from './rollout.entity.js';
import { RolloutRepository, type ActionView } from './rollout.repository.js';

/** Longest failure message kept with a device's state (the column's length). */
const MESSAGE_LENGTH = 500;

/** Most lines of a deployment log kept: the last ones. */
export const DEPLOYMENT_LOG_LINES = 2000;

/** 404 text of a report about a rollout that is not the tenant's or does not target the device (docs/decisions.md §6). */
export const ROLLOUT_NOT_FOUND = 'Rollout not found';

/** What a device's poll read: the device as stored, its candidate rollouts and the rollouts it is `installed` in. */
export interface DevicePoll {
  device: TrackedDevice & DeviceVersion;
  /** Rollouts passing the database filters of docs/decisions.md §8 for the device. */
  candidates: readonly RolloutCandidate[];
  /** Rollouts the device reported success for and has not confirmed yet. */
  installed: readonly InstalledRollout[];
}

/** A rollout a report names, the reporting device and the rollout's target version. */
export interface ReportedRollout {
  rollout: Rollout;
  device: Device;
  /** The rollout firmware's version. */
  target: string;
}

/**
 * What a device asks of rollouts and what its reports mean, whatever protocol it speaks
 * (docs/decisions.md §8, §10): the protocol adapters read the device and map the answers, this
 * decides.
 */
@Injectable()
export class DeviceRolloutService {
  constructor(
    private readonly rollouts: RolloutRepository,
    private readonly states: DeviceStateService,
    private readonly stateRows: DeviceStateRepository,
    private readonly devices: DeviceService,
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
    private readonly logs: DeploymentLogRepository,
  ) {}

  /**
   * A device asked for its next rollout, running `runningVersion`: records the version and when it
   * was seen, confirms the rollouts it is `installed` in (or marks them `fell_back`), then chooses
   * (docs/decisions.md §8); the device is then `offered` in the chosen one (written behind). The
   * chosen rollout is withheld (`null`) outside its maintenance windows, or when it is a new offer
   * beyond its ramp's allowance this minute (docs/decisions.md §10.1).
   * @returns the chosen rollout, or `null`.
   * @throws NotFoundException `Device does't exist!` when the device was deleted meanwhile.
   */
  async poll(poll: DevicePoll, runningVersion: string): Promise<RolloutCandidate | null> {
    await this.devices.reportVersion(poll.device, runningVersion);
    if (poll.installed.length > 0) await this.states.versionSeen(poll.device, runningVersion, poll.installed);
    await this.settleSkips(poll.device, poll.candidates, runningVersion);
    const chosen = chooseNextRollout(poll.candidates, runningVersion);
    if (chosen === null || !this.windowOf(chosen).open) return null;
    if (isNewOffer(chosen)) {
      if (!(await this.takeOffer(chosen))) return null;
      this.states.offered(chosen.id, poll.device, chosen.waveCount);
    }
    return chosen;
  }

  /**
   * Settles the device in the candidates that will never update it, running `version` (a `skip`
   * decision, policy/decision.ts, docs/decisions.md §10.5): `confirmed` where it already runs the
   * firmware's version, `skipped` where anti-rollback keeps it from being offered; the rollouts
   * then wait for it no more. Nothing is written for the others.
   */
  private async settleSkips(device: TrackedDevice, candidates: readonly RolloutCandidate[], version: string): Promise<void> {
    for (const candidate of candidates) {
      const decision = candidateDecision(candidate, version);
      if (decision.kind !== 'skip') continue;
      await this.states.skipped(candidate.id, device, decision.settleAs, version, decision.reason, candidate.waveCount);
    }
  }

  /**
   * Where a rollout's maintenance windows stand now (policy/windows.ts, docs/decisions.md §10.1):
   * outside every window a device is not offered its installation.
   */
  windowOf(rollout: Pick<RolloutCandidate, 'windows'> | Pick<Rollout, 'windows'>): WindowState {
    const windows = typeof rollout.windows === 'string' ? storedWindowsOf(rollout.windows) : (rollout.windows ?? []);
    return windowAt(windows, this.clock.now());
  }

  /**
   * Takes one new offer of the rollout's ramp in the current minute (policy/ramp.ts, docs/decisions.md
   * §10.1), counted in the database so every instance shares the allowance; always granted
   * without a ramp.
   * @returns whether the device may be offered the rollout now.
   */
  private async takeOffer(candidate: RolloutCandidate): Promise<boolean> {
    if (!candidate.ramp) return true;
    const counts = await this.rollouts.rampCounts(candidate.id);
    return this.rollouts.takeOffer(candidate.id, minuteOf(this.clock.now()), rampAllowance(candidate.ramp, counts));
  }

  /**
   * What a device that reports per action (hawkBit DDI, docs/decisions.md §12) is asked to do now
   * ({@link chooseAction}): cancel, or take a rollout (then `offered` in it, written behind, when it
   * was `pending` or had no state). Records when the device was seen; its version is not reported
   * by such a device, so it is not changed. A new offer beyond the rollout's ramp allowance this
   * minute is no action (`null`); outside its maintenance windows the action is still given (the
   * DDI adapter says `update: skip`, {@link windowOf}; docs/decisions.md §10.1).
   * @param device the device as the adapter read it, with its tenant and identifier.
   * @returns the action, or `null` when there is nothing to do.
   */
  async pollAction(device: TrackedDevice, view: ActionView): Promise<DeviceAction | null> {
    this.devices.seen(device);
    await this.settleSkips(device, activeOf(view.rollouts), view.device.firmwareVersion);
    const action = chooseAction(view.rollouts, view.device.firmwareVersion);
    if (action?.kind === 'deploy' && isNewOffer(action.rollout)) {
      if (!(await this.takeOffer(action.rollout))) return null;
      this.states.offered(action.rollout.id, device, action.rollout.waveCount);
    }
    return action;
  }

  /**
   * A device that reports per deployment and says what it runs when it asks (a Mender client,
   * docs/decisions.md §13) asks for its next deployment, running `runningVersion`: the version is
   * recorded ({@link versionReported}), then the action rule decides ({@link chooseAction}). A
   * cancellation means nothing to offer: such a device asks only while it is idle, so a device
   * `offered` or `downloading` in a paused or cancelled rollout is `pending` there again (offered
   * again if it resumes). The rollout to take is returned (the device is then `offered` in it,
   * written behind, when it was `pending` or had no state), or `null`; also `null` outside the
   * rollout's maintenance windows (unless the device is `installed` there) and for a new offer
   * beyond its ramp's allowance (docs/decisions.md §10.1).
   * @param device the device as its credential named it.
   */
  async pollDeployment(device: Device, runningVersion: string): Promise<ActionRollout | null> {
    await this.versionReported(device, runningVersion);
    const view = await this.actionView(device.tenantId, device.mac);
    if (view !== null) await this.settleSkips(device, activeOf(view.rollouts), runningVersion);
    const action = view === null ? null : chooseAction(view.rollouts, runningVersion);
    if (action === null) return null;
    if (action.kind === 'cancel') {
      const rollout = await this.rollouts.findRollout(device.tenantId, action.rollout.id);
      if (rollout) await this.states.withdrawn(rollout, device, 'the rollout was paused or cancelled while the device was idle');
      return null;
    }
    if (action.rollout.state !== 'installed' && !this.windowOf(action.rollout).open) return null;
    if (isNewOffer(action.rollout)) {
      if (!(await this.takeOffer(action.rollout))) return null;
      this.states.offered(action.rollout.id, device, action.rollout.waveCount);
    }
    return action.rollout;
  }

  /**
   * A device says which version it runs (a Mender client's `artifact_name`, in its inventory or
   * when it asks for a deployment): recorded as its version with when it was seen
   * (docs/decisions.md §6), and the rollouts it is `installed` in are confirmed where it is their
   * target version, or marked `fell_back` (docs/decisions.md §10).
   */
  async versionReported(device: Device, version: string): Promise<void> {
    await this.devices.reportVersion(device, version);
    const installed = await this.stateRows.installedOf(device.tenantId, device.mac);
    if (installed && installed.rollouts.length > 0) await this.states.versionSeen(device, version, installed.rollouts);
  }

  /**
   * Whether the device is to stop its deployment in the reported rollout ({@link isAborted}: the
   * rollout was paused or cancelled before the device installed it). When it is, a device
   * `offered` or `downloading` there is `pending` again, with `message` in its history.
   */
  async abortIfWithdrawn(reported: ReportedRollout, message: string): Promise<boolean> {
    const state = (await this.attemptOf(reported))?.state ?? null;
    if (!isAborted(reported.rollout.status, state)) return false;
    if (state !== null && WITHDRAWN_FROM.includes(state)) await this.withdrawn(reported, message);
    return true;
  }

  /** The device reports it is downloading the rollout's firmware: `downloading` from `pending` or `offered`. */
  downloadReported({ rollout, device }: ReportedRollout): Promise<boolean> {
    return this.states.downloadReported(rollout, device, wavesOf(rollout).length);
  }

  /**
   * Keeps the log a device sent about its attempt in the reported rollout (its last
   * {@link DEPLOYMENT_LOG_LINES} lines), replacing an older one; where the device is `failed`
   * there, its failure message becomes the log's error lines ({@link failureSummary}).
   */
  async keepLog({ rollout, device }: ReportedRollout, lines: readonly DeploymentLogLine[]): Promise<void> {
    const kept = lines.slice(-DEPLOYMENT_LOG_LINES);
    await this.unitOfWork.transaction((manager) =>
      this.logs.replace(manager, {
        rolloutId: rollout.id,
        deviceId: device.id,
        receivedAt: this.clock.now(),
        messages: JSON.stringify(kept),
      }),
    );
    const summary = failureSummary(kept);
    if (summary !== null) await this.states.explainFailure(rollout.id, device.id, summary);
  }

  /**
   * The tenant's device with identifier `mac` and the rollouts that concern it, as a device that
   * reports per action sees them at this moment; `null` when the tenant has no such device.
   */
  actionView(tenantId: number, mac: string): Promise<ActionView | null> {
    return this.rollouts.actionView(tenantId, mac, this.clock.now());
  }

  /** The rollout a device that reports per action most recently confirmed (DDI `installedBase`), or `null`. */
  lastConfirmed(device: TrackedDevice): Promise<number | null> {
    return this.rollouts.lastConfirmed(device.tenantId, device.id);
  }

  /**
   * The device's state in the reported rollout and the problem kept with it (offers held back
   * written first); `null` when it has no state yet.
   */
  attemptOf({ rollout, device }: ReportedRollout): Promise<{ state: DeviceState; message: string | null } | null> {
    return this.states.attemptOf(rollout.id, device.id);
  }

  /**
   * Whether a device that reports per action may still report on its action in this rollout:
   * not once it is confirmed, failed or fell back there ({@link isOpenAction}).
   */
  async isOpen(reported: ReportedRollout): Promise<boolean> {
    return isOpenAction((await this.attemptOf(reported))?.state ?? null);
  }

  /** The device says it is installing the rollout: `installed` once it fetched the firmware (policy/device-actions.ts). */
  installing({ rollout, device }: ReportedRollout): Promise<boolean> {
    return this.states.installing(rollout, device, wavesOf(rollout).length);
  }

  /** The device acknowledged the cancellation of its action: back to `pending` (policy/device-actions.ts). */
  withdrawn({ rollout, device }: ReportedRollout, message: string): Promise<boolean> {
    return this.states.withdrawn(rollout, device, message);
  }

  /**
   * The device holds the firmware of a download-only rollout (docs/decisions.md §12): `confirmed`
   * there, its version unchanged.
   */
  downloaded({ rollout, device }: ReportedRollout, message: string): Promise<boolean> {
    return this.states.downloadConfirmed(rollout, device, device.firmwareVersion, wavesOf(rollout).length, message);
  }

  /** The device's state changes in the reported rollout, newest first, at most `limit` (offers held back written first). */
  async history(
    { rollout, device }: ReportedRollout,
    limit: number,
  ): Promise<{ state: DeviceState; at: number; message: string | null }[]> {
    await this.states.flushOffers();
    return (await this.stateRows.history(rollout.id, device.id, limit)).map((t) => ({ state: t.state, at: t.at, message: t.message }));
  }

  /** Keeps a problem the device reported while its attempt is open; a later failure report names it. */
  noteProblem({ rollout, device }: ReportedRollout, message: string): Promise<void> {
    return this.states.noteProblem(rollout.id, device.id, message);
  }

  /**
   * The tenant's rollout `rolloutId` (decimal text) that targets its device with identifier `mac`,
   * started (not a draft).
   * @throws NotFoundException {@link ROLLOUT_NOT_FOUND} otherwise (also for an unregistered device).
   */
  async reported(tenantId: number, rolloutId: string, mac: string): Promise<ReportedRollout> {
    const id = /^\d{1,15}$/.test(rolloutId) ? Number(rolloutId) : null;
    const rollout = id === null ? null : await this.rollouts.findRollout(tenantId, id);
    if (!rollout || rollout.status === 'draft') throw new NotFoundException(ROLLOUT_NOT_FOUND);
    const device = await this.devices.find(tenantId, mac);
    if (!device || !(await this.rollouts.targets(rollout.id, device.id))) throw new NotFoundException(ROLLOUT_NOT_FOUND);
    return { rollout, device, target: await this.rollouts.targetVersion(rollout.firmwareId) };
  }

  /**
   * A device reported success with `version`. The first report is recorded (`inserted`) and moves
   * the device to `installed`, or `confirmed` at once when it carries the target version (then it
   * is also the device's version); later ones, also racing duplicates, are `existing`.
   */
  async success({ rollout, device, target }: ReportedRollout, version: string): Promise<'inserted' | 'existing'> {
    await this.states.flushOffers();
    try {
      await this.unitOfWork.transaction(async (manager) => {
        await this.rollouts.insertSuccess(manager, {
          rolloutId: rollout.id,
          deviceId: device.id,
          firmwareVersion: version,
          createdAt: this.clock.now(),
        });
        if (version === target) await this.devices.reportVersion(device, version, manager);
        await this.states.successReported(manager, rollout, device, version, target, wavesOf(rollout).length);
      });
      if (version === target && device.firmwareVersion !== version) await this.devices.devicesChanged(device.tenantId, [device.mac]);
      return 'inserted';
    } catch (error) {
      if (isUniqueViolation(error)) return 'existing';
      throw error;
    }
  }

  /**
   * A device reported a failure with `version` and its message: `failed`, unless it is already
   * confirmed, failed or fell back. The device's version is not changed.
   * @returns whether the device moved to `failed`.
   */
  failure({ rollout, device }: ReportedRollout, version: string, message: string | null): Promise<boolean> {
    return this.states.failureReported(rollout, device, version, message, wavesOf(rollout).length);
  }
}

/** The active rollouts among those a device that reports per action sees. */
function activeOf(rollouts: readonly ActionRollout[]): ActionRollout[] {
  return rollouts.filter((rollout) => rollout.status === 'active');
}

/** Whether offering the rollout to the device is a new offer (the device has no state there or is `pending`): what a ramp limits. */
function isNewOffer(candidate: RolloutCandidate): boolean {
  return candidate.state === null || candidate.state === 'pending';
}

/**
 * What a deployment log says went wrong, as a failure message: its `error` lines (else its last
 * three lines), joined with `; `, at most {@link MESSAGE_LENGTH} characters; `null` for an empty log.
 */
export function failureSummary(lines: readonly DeploymentLogLine[]): string | null {
  const errors = lines.filter((line) => line.level.toLowerCase() === 'error');
  const chosen = (errors.length > 0 ? errors : lines.slice(-3)).map((line) => line.message.trim()).filter((text) => text !== '');
  if (chosen.length === 0) return null;
  const text = chosen.join('; ');
  return text.length <= MESSAGE_LENGTH ? text : `${text.slice(0, MESSAGE_LENGTH - 1)}…`;
}
