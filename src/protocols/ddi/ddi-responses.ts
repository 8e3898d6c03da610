import { formatPollingSleep } from '#src/domain/tenant/ddi-polling.js';
import type { DdiArtifact as FirmwareArtifact } from '#src/domain/firmware/firmware.service.js';
import type { DeviceAction } from '#src/domain/rollout/policy/device-actions.js';
import type { DdiActionType } from '#src/domain/rollout/rollout.entity.js';
import type { DdiActionHistory, DdiArtifact, DdiCancel, DdiControllerBase, DdiDeploymentBase } from './dto/ddi.dto.js';

/**
 * The DDI component's answers (docs/decisions.md §12), each built in one function, in the shapes
 * of hawkBit's DDI model. Links are absolute: clients use them verbatim.
 */

/** Where a device's resources are, as it reaches them. */
export interface DeviceLinks {
  /** `{scheme}://{host}{DDI_URL path}/{tenant}/controller/v1/{controllerId}`, as the device called it. */
  controller: string;
  /** Whether the device polled over plain HTTP (then the `-http` links are given too). */
  http: boolean;
}

/**
 * The `c` query value of a deploymentBase link: changes when the action's type changes, as
 * hawkBit's (`31 × action + 1231/1237/1249`), and when its maintenance window opens or closes
 * (+2 while closed), so clients that compare links fetch the deployment again.
 */
function etagOf(actionId: number, type: DdiActionType, windowClosed = false): number {
  return 31 * actionId + { forced: 1231, soft: 1237, 'download-only': 1249 }[type] + (windowClosed ? 2 : 0);
}

/**
 * The root resource: the polling interval and links to what the device should fetch. A
 * cancellation is linked instead of any deployment; `installedBase` names the last action the
 * device closed with success; `configData` is linked while the server wants the device's
 * attributes (it never sent any).
 */
export function controllerBase(
  sleepSeconds: number,
  action: DeviceAction | null,
  actionType: DdiActionType | undefined,
  installed: number | null,
  wantsAttributes: boolean,
  links: DeviceLinks,
  windowClosed = false,
): DdiControllerBase {
  const _links: DdiControllerBase['_links'] = {};
  if (action?.kind === 'cancel') _links.cancelAction = { href: `${links.controller}/cancelAction/${action.rollout.id}` };
  if (action?.kind === 'deploy') {
    const id = action.rollout.id;
    _links.deploymentBase = { href: `${links.controller}/deploymentBase/${id}?c=${etagOf(id, actionType ?? 'forced', windowClosed)}` };
  }
  if (installed !== null) _links.installedBase = { href: `${links.controller}/installedBase/${installed}` };
  if (wantsAttributes) _links.configData = { href: `${links.controller}/configData` };
  return { config: { polling: { sleep: formatPollingSleep(sleepSeconds) } }, _links };
}

/** How an action type is told (hawkBit `calculateDownloadType` / `calculateUpdateType`). */
const HANDLING: Record<DdiActionType, { download: string; update: string }> = {
  forced: { download: 'forced', update: 'forced' },
  soft: { download: 'attempt', update: 'attempt' },
  'download-only': { download: 'forced', update: 'skip' },
};

/**
 * A deployment (deploymentBase, installedBase): the action id as text and the firmware as the one
 * chunk. With `window` (the rollout has maintenance windows, docs/decisions.md §10.1) it says
 * `maintenanceWindow`, and outside every window `update: skip` (hawkBit: download allowed, install
 * withheld until a window opens).
 */
export function deploymentBase(
  actionId: number,
  type: DdiActionType,
  artifact: FirmwareArtifact,
  links: DeviceLinks,
  history?: DdiActionHistory,
  window?: { open: boolean },
): DdiDeploymentBase {
  const handling = HANDLING[type];
  return {
    id: String(actionId),
    deployment: {
      download: handling.download,
      update: window && !window.open ? 'skip' : handling.update,
      ...(window ? { maintenanceWindow: window.open ? ('available' as const) : ('unavailable' as const) } : {}),
      chunks: [{ part: 'os', version: artifact.version, name: artifact.deviceType, artifacts: [artifactOf(artifact, links)] }],
    },
    ...(history ? { actionHistory: history } : {}),
  };
}

/** A firmware as an artifact, with its download and MD5SUM links. */
export function artifactOf(artifact: FirmwareArtifact, links: DeviceLinks): DdiArtifact {
  const file = `${links.controller}/softwaremodules/${artifact.firmwareId}/artifacts/${encodeURIComponent(artifact.filename)}`;
  return {
    filename: artifact.filename,
    hashes: { sha1: artifact.sha1, md5: artifact.md5, sha256: artifact.sha256 },
    size: artifact.size,
    _links: {
      download: { href: file },
      md5sum: { href: `${file}.MD5SUM` },
      ...(links.http ? { 'download-http': { href: file }, 'md5sum-http': { href: `${file}.MD5SUM` } } : {}),
    },
  };
}

/** A cancellation: the action to stop is the action itself. */
export function cancelOf(actionId: number): DdiCancel {
  return { id: String(actionId), cancelAction: { stopId: String(actionId) } };
}

/** The text of an artifact's MD5SUM file, as `md5sum` writes it: `<md5>  <filename>`. */
export function md5sumText(artifact: Pick<FirmwareArtifact, 'md5' | 'filename'>): string {
  return `${artifact.md5}  ${artifact.filename}`;
}
