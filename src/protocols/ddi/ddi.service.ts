import { BadRequestException, GoneException, Injectable, NotFoundException } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { DeviceService } from '#src/domain/device/device.service.js';
import { FirmwareDownloadService, type DownloadAnswer } from '#src/domain/delivery/firmware-download.service.js';
import { FIRMWARE_NOT_FOUND, FirmwareService, type DdiArtifact as FirmwareArtifact } from '#src/domain/firmware/firmware.service.js';
import { storedWindowsOf } from '#src/domain/rollout/policy/windows.js';
import { DeviceRolloutService, type ReportedRollout } from '#src/domain/rollout/device-rollout.service.js';
import { WITHDRAWN_FROM } from '#src/domain/rollout/policy/device-actions.js';
import { SETTLED_STATES, type DeviceState } from '#src/domain/rollout/policy/device-states.js';
import { isStoredId } from '#src/platform/common/input-rules.js';
import type { DdiPrincipal } from './ddi-auth.guard.js';
import { readConfigData, readFeedback, type DdiFeedback } from './ddi-bodies.js';
import { artifactOf, cancelOf, controllerBase, deploymentBase, md5sumText, type DeviceLinks } from './ddi-responses.js';
import type { DdiActionHistory, DdiArtifact, DdiCancel, DdiControllerBase, DdiDeploymentBase } from './dto/ddi.dto.js';

/** 404 text of an action the device does not have (docs/decisions.md §12). */
export const actionNotFound = (actionId: string): string => `Action ${actionId} not found`;

/** 410 text of a feedback on an action the device already closed (hawkBit answers 410 Gone). */
export const actionClosed = (actionId: string): string => `Action ${actionId} is closed`;

/** 400 text of an action id that is not a decimal number. */
export const INVALID_ACTION_ID = 'actionId must be a decimal number';

/** 400 text of a software module id that is not a decimal number. */
export const INVALID_MODULE_ID = 'softwareModuleId must be a decimal number';

/** Longest message kept with a device's state (the column's length). */
const MESSAGE_LENGTH = 500;

/** Most messages of an `actionHistory`. */
const MAX_HISTORY = 100;

/** The hawkBit action status of a device state, for `actionHistory.status`. */
const ACTION_STATUS: Record<DeviceState, string> = {
  pending: 'SCHEDULED',
  offered: 'RETRIEVED',
  downloading: 'DOWNLOAD',
  installed: 'RUNNING',
  confirmed: 'FINISHED',
  failed: 'ERROR',
  fell_back: 'ERROR',
  timed_out: 'ERROR',
  skipped: 'CANCELED',
};

/** A download answer, or the text of an MD5SUM file. */
export type ArtifactAnswer =
  { kind: 'download'; answer: DownloadAnswer; filename: string } | { kind: 'md5sum'; text: string; filename: string };

/**
 * The DDI component's rules of the wire (docs/decisions.md §12): it reads what a hawkBit client
 * sends, lets the rollout engine ({@link DeviceRolloutService}: the one target rule, the device
 * states, waves and thresholds) decide, and answers in hawkBit's shapes. An action is a rollout
 * as one device sees it; its id is the rollout id.
 */
@Injectable()
export class DdiService {
  constructor(
    private readonly deviceRollouts: DeviceRolloutService,
    private readonly devices: DeviceService,
    private readonly firmware: FirmwareService,
    private readonly downloads: FirmwareDownloadService,
  ) {}

  /**
   * The root resource: the tenant's polling interval, the action to take or to cancel
   * (policy/device-actions.ts), the last action closed with success, and `configData` while the
   * device never sent attributes. Counts as the device being seen.
   */
  async root(caller: DdiPrincipal, links: DeviceLinks): Promise<DdiControllerBase> {
    const { tenant, device } = caller;
    const view = await this.deviceRollouts.actionView(tenant.id, device.mac);
    const action = view === null ? null : await this.deviceRollouts.pollAction(device, view);
    const installed = await this.deviceRollouts.lastConfirmed(device);
    const type = action === null ? undefined : view?.ddiActionTypes.get(action.rollout.id);
    const windowClosed =
      action?.kind === 'deploy' && action.rollout.state !== 'installed' && !this.deviceRollouts.windowOf(action.rollout).open;
    return controllerBase(tenant.ddiPollingSeconds, action, type, installed, device.attributes === null, links, windowClosed);
  }

  /**
   * An action to take: the rollout's firmware as the one chunk, how to take it (its DDI action
   * type) and, with `actionHistory` other than 0, the device's state changes in it (a negative
   * count: up to {@link MAX_HISTORY}).
   * @throws NotFoundException {@link actionNotFound} for a rollout that is not the tenant's, not
   *   started or does not target the device, and while the action is being cancelled (hawkBit too).
   */
  async deploymentBase(caller: DdiPrincipal, actionId: string, historyCount: number, links: DeviceLinks): Promise<DdiDeploymentBase> {
    const reported = await this.action(caller, actionId);
    const attempt = await this.deviceRollouts.attemptOf(reported);
    const state = attempt?.state ?? null;
    const beingCancelled =
      reported.rollout.status !== 'active' && state !== 'installed' && (state === null || !SETTLED_STATES.includes(state));
    if (beingCancelled) throw new NotFoundException(actionNotFound(actionId));
    const awaitingInstall = state === null || (state !== 'installed' && !SETTLED_STATES.includes(state));
    return this.deployment(reported, historyCount, links, awaitingInstall);
  }

  /**
   * An action the device closed (confirmed, failed or fell back): as {@link deploymentBase}.
   * @throws NotFoundException {@link actionNotFound} also while the action is open (hawkBit too).
   */
  async installedBase(caller: DdiPrincipal, actionId: string, historyCount: number, links: DeviceLinks): Promise<DdiDeploymentBase> {
    const reported = await this.action(caller, actionId);
    const state = (await this.deviceRollouts.attemptOf(reported))?.state ?? null;
    if (state === null || !SETTLED_STATES.includes(state)) throw new NotFoundException(actionNotFound(actionId));
    return this.deployment(reported, historyCount, links);
  }

  /**
   * A feedback on an action, mapped onto the device's state (docs/decisions.md §12):
   * - `closed` + `failure` → `failed`, with the details (and the errors the device reported
   *   before on this action) as its message;
   * - `closed` + `success` (or `none`) → `confirmed`: the device reports it after it booted the
   *   new image; in a download-only rollout, `confirmed` only once it fetched the firmware,
   *   else `failed` (it skipped the action without downloading);
   * - `downloaded` in a download-only rollout → `confirmed`;
   * - `proceeding` or `resumed` → `installed` once it fetched the firmware (kept offered until it
   *   closes the action);
   * - `canceled` → back to `pending` where the rollout was paused or cancelled;
   * - anything else (`scheduled`, `download`, `rejected`) changes no state.
   * Error lines in any feedback are kept with the state for a later failure to name them.
   * @throws BadRequestException for a body hawkBit refuses too (no `status.execution` or
   *   `status.result.finished`); NotFoundException {@link actionNotFound};
   *   GoneException {@link actionClosed} once the device's state there is settled.
   */
  async feedback(caller: DdiPrincipal, actionId: string, body: unknown): Promise<void> {
    const feedback = readFeedback(body);
    if ('error' in feedback) throw new BadRequestException(feedback.error);
    const reported = await this.action(caller, actionId);
    const attempt = await this.deviceRollouts.attemptOf(reported);
    if (attempt !== null && SETTLED_STATES.includes(attempt.state)) throw new GoneException(actionClosed(actionId));
    const errors = errorLines(feedback.details);
    const downloadOnly = reported.rollout.ddiActionType === 'download-only';
    const fetched = attempt !== null && (attempt.state === 'downloading' || attempt.state === 'installed');
    switch (feedback.execution) {
      case 'closed':
        if (feedback.finished === 'failure') await this.fail(reported, feedback, attempt?.message ?? null);
        else if (!downloadOnly) await this.deviceRollouts.success(reported, reported.target);
        else if (fetched) await this.deviceRollouts.downloaded(reported, joined(['downloaded', ...feedback.details]));
        else
          await this.fail(
            reported,
            { ...feedback, details: ['closed the download-only action without downloading the firmware', ...feedback.details] },
            null,
          );
        return;
      case 'downloaded':
        if (downloadOnly) await this.deviceRollouts.downloaded(reported, joined(['downloaded', ...feedback.details]));
        break;
      case 'proceeding':
      case 'resumed':
        if (!downloadOnly) await this.deviceRollouts.installing(reported);
        break;
      case 'canceled':
        if (reported.rollout.status !== 'active') await this.deviceRollouts.withdrawn(reported, joined(['canceled', ...feedback.details]));
        break;
      default:
        break;
    }
    if (errors.length > 0) await this.deviceRollouts.noteProblem(reported, joined(errors));
  }

  /**
   * An action to stop: the rollout was paused or cancelled while the device had started on it.
   * @throws NotFoundException {@link actionNotFound} when it is not being cancelled for the device.
   */
  async cancelAction(caller: DdiPrincipal, actionId: string): Promise<DdiCancel> {
    const reported = await this.action(caller, actionId);
    const state = (await this.deviceRollouts.attemptOf(reported))?.state ?? null;
    if (reported.rollout.status === 'active' || state === null || !WITHDRAWN_FROM.includes(state)) {
      throw new NotFoundException(actionNotFound(actionId));
    }
    return cancelOf(reported.rollout.id);
  }

  /**
   * A feedback on a cancellation: `closed` with `success` (or `none`) acknowledges it, and the
   * device goes back to `pending` (offered again if the rollout resumes); anything else (a
   * rejection, a failure) leaves it where it is, as hawkBit does.
   * @throws BadRequestException as {@link feedback}; NotFoundException {@link actionNotFound}.
   */
  async cancelFeedback(caller: DdiPrincipal, actionId: string, body: unknown): Promise<void> {
    const feedback = readFeedback(body);
    if ('error' in feedback) throw new BadRequestException(feedback.error);
    const reported = await this.action(caller, actionId);
    if (feedback.execution === 'closed' && feedback.finished !== 'failure' && reported.rollout.status !== 'active') {
      await this.deviceRollouts.withdrawn(reported, joined(['cancellation acknowledged', ...feedback.details]));
    }
  }

  /**
   * The device's attributes (`mode` merge, replace or remove; merge when absent), kept and shown
   * to operators.
   * @throws BadRequestException for a body that is not `{data, mode?}` within hawkBit's limits.
   */
  async configData(caller: DdiPrincipal, body: unknown): Promise<void> {
    const config = readConfigData(body);
    if ('error' in config) throw new BadRequestException(config.error);
    await this.devices.reportAttributes(caller.device, config.data, config.mode);
  }

  /**
   * The artifacts of a firmware ("software module") of the tenant for the device's type.
   * @throws BadRequestException {@link INVALID_MODULE_ID}; NotFoundException `Firmware not found`.
   */
  async artifacts(caller: DdiPrincipal, moduleId: string, links: DeviceLinks): Promise<DdiArtifact[]> {
    return [artifactOf(await this.module(caller, moduleId), links)];
  }

  /**
   * An artifact download, or its MD5SUM file (`<filename>.MD5SUM`): the bytes with `Range`,
   * `ETag`, `Content-Length` and `x-MD5` as the IPFS component serves them, recorded the same way
   * (the device is then `downloading` in the rollouts of it that offered it).
   * @throws BadRequestException {@link INVALID_MODULE_ID}; NotFoundException `Firmware not found`
   *   for another file name; the download's own errors (416).
   */
  async artifact(
    caller: DdiPrincipal,
    moduleId: string,
    filename: string,
    method: string,
    headers: IncomingHttpHeaders,
  ): Promise<ArtifactAnswer> {
    const artifact = await this.module(caller, moduleId);
    if (filename === `${artifact.filename}.MD5SUM`) return { kind: 'md5sum', text: md5sumText(artifact), filename };
    if (filename !== artifact.filename) throw new NotFoundException(FIRMWARE_NOT_FOUND);
    const { device } = caller;
    const downloader = {
      tenantId: device.tenantId,
      deviceKeyId: device.deviceKeyId,
      device: { id: device.id, mac: device.mac },
      freeSpace: null,
    };
    const answer = await this.downloads.answer(downloader, { method, cid: artifact.cid, headers });
    return { kind: 'download', answer, filename };
  }

  /** The tenant's firmware `moduleId` for the device's type. */
  private async module(caller: DdiPrincipal, moduleId: string): Promise<FirmwareArtifact> {
    if (!/^\d+$/.test(moduleId)) throw new BadRequestException(INVALID_MODULE_ID);
    const id = Number(moduleId);
    if (!isStoredId(id)) throw new NotFoundException(FIRMWARE_NOT_FOUND);
    const artifact = await this.firmware.ddiArtifact(caller.tenant.id, id);
    if (artifact.deviceType !== caller.device.deviceType) throw new NotFoundException(FIRMWARE_NOT_FOUND);
    return artifact;
  }

  /**
   * The deployment of an action, with its history when asked; `windowed`: says where the rollout's
   * maintenance windows stand (an open action not yet installed, docs/decisions.md §10.1).
   */
  private async deployment(
    reported: ReportedRollout,
    historyCount: number,
    links: DeviceLinks,
    windowed = false,
  ): Promise<DdiDeploymentBase> {
    const artifact = await this.firmware.ddiArtifact(reported.rollout.tenantId, reported.rollout.firmwareId);
    let history: DdiActionHistory | undefined;
    if (historyCount !== 0) {
      const limit = historyCount < 0 ? MAX_HISTORY : Math.min(historyCount, MAX_HISTORY);
      const changes = await this.deviceRollouts.history(reported, limit);
      if (changes.length > 0) {
        history = {
          status: ACTION_STATUS[changes[0].state],
          messages: changes.map((c) => `${c.state} at ${new Date(c.at).toISOString()}${c.message === null ? '' : `: ${c.message}`}`),
        };
      }
    }
    const hasWindows = windowed && storedWindowsOf(reported.rollout.windows).length > 0;
    const window = hasWindows ? { open: this.deviceRollouts.windowOf(reported.rollout).open } : undefined;
    return deploymentBase(reported.rollout.id, reported.rollout.ddiActionType, artifact, links, history, window);
  }

  /**
   * The action `actionId` of the device: a started rollout of the tenant that targets it.
   * @throws BadRequestException {@link INVALID_ACTION_ID}; NotFoundException {@link actionNotFound}.
   */
  private async action(caller: DdiPrincipal, actionId: string): Promise<ReportedRollout> {
    if (!/^\d+$/.test(actionId)) throw new BadRequestException(INVALID_ACTION_ID);
    try {
      return await this.deviceRollouts.reported(caller.tenant.id, actionId, caller.device.mac);
    } catch (error) {
      if (error instanceof NotFoundException) throw new NotFoundException(actionNotFound(actionId));
      throw error;
    }
  }

  /** `failed`, with the feedback's details and the errors kept before as the message. */
  private async fail(reported: ReportedRollout, feedback: DdiFeedback, kept: string | null): Promise<void> {
    const details = joined(feedback.details) || 'closed with failure';
    await this.deviceRollouts.failure(reported, reported.device.firmwareVersion, truncate(kept ? `${details} (${kept})` : details));
  }
}

/**
 * The error lines of feedback details: those a client marks as errors (`ERROR …`, as SWUpdate's
 * log lines), without SWUpdate's line of every start with bootloader `none`.
 */
function errorLines(details: readonly string[]): string[] {
  return details.map((line) => line.trim()).filter((line) => /^ERROR\b/.test(line) && !/Cannot read stored update state/.test(line));
}

/** Details as one message: trimmed, without empty ones, joined with `; `, at most {@link MESSAGE_LENGTH} characters. */
function joined(details: readonly string[]): string {
  return truncate(
    details
      .map((line) => line.trim())
      .filter((line) => line !== '')
      .join('; '),
  );
}

function truncate(text: string): string {
  return text.length <= MESSAGE_LENGTH ? text : `${text.slice(0, MESSAGE_LENGTH - 1)}…`;
}
