import {
  BadRequestException,
  ConflictException,
  ForbiddenException,
  Inject,
  Injectable,
  Logger,
  NotFoundException,
  UnauthorizedException,
} from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { ErrorMessages, RetryLaterException } from '#src/platform/http/http-error.filter.js';
import { jsonSourceText } from '#src/platform/http/json-body.js';
import { FailedAuthentication, type FailureRule } from '#src/domain/access/failed-authentication.js';
import { DeviceService, MAX_ATTRIBUTES } from '#src/domain/device/device.service.js';
import { DownloadLinks } from '#src/domain/delivery/download-links.js';
import { FirmwareDownloadService, type DownloadAnswer } from '#src/domain/delivery/firmware-download.service.js';
import { FIRMWARE_NOT_FOUND, FirmwareService, menderArtifactOf } from '#src/domain/firmware/firmware.service.js';
import { DeviceIdentityService, type IdentifiedDevice } from '#src/domain/identity/device-identity.service.js';
import { DeviceRolloutService, ROLLOUT_NOT_FOUND, type ReportedRollout } from '#src/domain/rollout/device-rollout.service.js';
import { isVersionText, readAuthRequest, readInventory, readLog, readNextRequest, readStatus } from './mender-bodies.js';
import type { MenderDeployment } from './dto/mender.dto.js';

/** The one 401 text of an authentication request that is refused, whatever the reason (logged) (docs/decisions.md §13). */
export const MENDER_AUTH_REFUSED =
  'Authentication refused: the device is not accepted, or its request is not signed with its key and a valid tenant token';

/** 404 text of a deployment the device does not have. */
export const deploymentNotFound = (id: string): string => `Deployment ${id} not found`;

/** 409 text of a status report on a deployment its rollout stopped. */
export const deploymentAborted = (id: string, status: string): string => `Deployment ${id} is aborted: its rollout is ${status}`;

/** 403 text of a download link that is not one, or expired. */
export const LINK_REFUSED = 'Download link is not valid or has expired';

/** Where the component is, as the device reached it: `{scheme}://{host}{MENDER_URL path}`. */
export type ComponentBase = string;

/** A download: the answer and the artifact's file name. */
export interface ArtifactDownload {
  answer: DownloadAnswer;
  filename: string;
}

/**
 * The Mender component's rules of the wire (docs/decisions.md §13): it reads what a Mender client
 * sends, lets the device identities ({@link DeviceIdentityService}) and the rollout engine
 * ({@link DeviceRolloutService}) decide, and answers in Mender's shapes. A deployment is a rollout
 * as one device sees it; its id is the rollout id.
 */
@Injectable()
export class MenderService {
  private readonly logger = new Logger('Mender');
  private readonly authRule: FailureRule;

  constructor(
    private readonly identities: DeviceIdentityService,
    private readonly deviceRollouts: DeviceRolloutService,
    private readonly devices: DeviceService,
    private readonly firmware: FirmwareService,
    private readonly downloads: FirmwareDownloadService,
    private readonly links: DownloadLinks,
    private readonly failures: FailedAuthentication,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.authRule = { scope: 'mender-auth', limit: config.loginRateLimit, windowSeconds: config.loginRateWindowSeconds };
  }

  /**
   * An authentication request: the body as parsed and the exact text it was parsed from, the
   * `X-MEN-Signature` header and the client address. A refusal counts as a failed authentication
   * of the address and the identity and tenant token it names (docs/decisions.md §4).
   * @returns the device token, for the raw answer body.
   * @throws BadRequestException for a body that is not an authentication request, an identity or
   *   key that is not one; UnauthorizedException {@link MENDER_AUTH_REFUSED}; RetryLaterException 429.
   */
  async authenticate(body: unknown, signature: string | undefined, address: string): Promise<string> {
    const request = readAuthRequest(body);
    if ('error' in request) throw new BadRequestException(request.error);
    const source = jsonSourceText(body);
    const outcome = await this.identities.authenticate({
      ...request,
      message: Buffer.from(source ?? '', 'utf8'),
      signature: signature !== undefined && /^[A-Za-z0-9+/=\s]+$/.test(signature) ? Buffer.from(signature, 'base64') : null,
    });
    if (outcome.admitted) return outcome.token;
    this.logger.debug(`authentication refused from ${address}: ${outcome.reason}`);
    const standing = await this.failures.failed(this.authRule, { address, subject: `${request.tenantToken}\n${request.idData}` });
    if (standing.retryAfter !== null) throw new RetryLaterException(429, ErrorMessages.tooManyRequests, standing.retryAfter);
    throw new UnauthorizedException(MENDER_AUTH_REFUSED);
  }

  /**
   * The device's inventory: its attributes are kept (`replace` for PUT, `merge` for PATCH), at
   * most {@link MAX_ATTRIBUTES}: beyond them, reported attributes are dropped with a warning (PUT
   * keeps the first 100 by name; PATCH keeps the device's other attributes and adds the reported
   * ones, first by name, while there is room), never refused: a refused inventory would be retried
   * forever and the client would never ask for updates (docs/decisions.md §13). Its `artifact_name`
   * is the version it runs.
   * @throws BadRequestException for a body that is not `[{"name", "value"}]`.
   */
  async inventory(caller: IdentifiedDevice, body: unknown, mode: 'replace' | 'merge'): Promise<void> {
    const attributes = readInventory(body);
    if ('error' in attributes) throw new BadRequestException(attributes.error);
    const dropped = await this.devices.reportAttributes(caller.device, attributes, mode, 'drop');
    if (dropped.length > 0) {
      this.logger.warn(
        `device ${caller.device.mac} keeps at most ${MAX_ATTRIBUTES} attributes: ${dropped.length} of its inventory dropped`,
      );
    }
    const version = attributes['artifact_name'];
    if (version !== undefined && isVersionText(version)) await this.deviceRollouts.versionReported(caller.device, version);
  }

  /**
   * What the device is to install next (v2 `device_provides`, v1 provides or query), given the
   * artifact it runs: the deployment, or `null` (204). A rollout whose firmware is not a Mender
   * artifact cannot be installed by a Mender client: the device is failed there with that reason.
   * @throws BadRequestException for provides without an artifact name of 1 to 64 printable characters.
   */
  async next(caller: IdentifiedDevice, provides: unknown, base: ComponentBase): Promise<MenderDeployment | null> {
    const request = readNextRequest(provides);
    if ('error' in request) throw new BadRequestException(request.error);
    const { device } = caller;
    const rollout = await this.deviceRollouts.pollDeployment(device, request.artifactName);
    if (rollout === null) return null;
    const firmware = await this.firmware.require(caller.tenantId, rollout.firmwareId);
    const artifact = menderArtifactOf(firmware);
    if (artifact === null) {
      const reported = await this.deviceRollouts.reported(caller.tenantId, String(rollout.id), device.mac);
      await this.deviceRollouts.failure(
        reported,
        request.artifactName,
        `firmware ${firmware.id} (${firmware.version}) is not a Mender artifact: a Mender client installs only those`,
      );
      return null;
    }
    const path = downloadPath(caller.tenantId, firmware.id, device.id);
    const link = this.links.sign(path);
    return {
      id: String(rollout.id),
      artifact: {
        id: String(firmware.id),
        artifact_name: artifact.artifactName,
        source: {
          uri: `${base}${path}?expires=${link.expires}&signature=${link.signature}`,
          expire: new Date(link.expires * 1000).toISOString(),
        },
        device_types_compatible: artifact.deviceTypesCompatible,
      },
    };
  }

  /**
   * A status report on a deployment, mapped onto the device's state (docs/decisions.md §13):
   * `downloading` → `downloading`; `installing`, `rebooting` → `installed` once it fetched the
   * artifact (kept until it reports the end); `success` (after its commit) and `already-installed`
   * → `confirmed`; `failure` → `failed` (its log, sent next, names the cause); the pause states
   * change nothing. A rollout paused or cancelled before the device installed it answers 409: the
   * client stops (and the device is `pending` there again). Repeated reports change nothing more.
   * @throws BadRequestException for an unknown status; NotFoundException {@link deploymentNotFound};
   *   ConflictException {@link deploymentAborted}.
   */
  async status(caller: IdentifiedDevice, deploymentId: string, body: unknown): Promise<void> {
    const status = readStatus(body);
    if (typeof status !== 'string') throw new BadRequestException(status.error);
    const reported = await this.deployment(caller, deploymentId);
    this.devices.seen(caller.device);
    const stopped = `stopped: the rollout was ${reported.rollout.status} (the client's "${status}" was answered 409)`;
    if (await this.deviceRollouts.abortIfWithdrawn(reported, stopped)) {
      throw new ConflictException(deploymentAborted(deploymentId, reported.rollout.status));
    }
    switch (status) {
      case 'downloading':
        await this.deviceRollouts.downloadReported(reported);
        break;
      case 'installing':
      case 'rebooting':
        await this.deviceRollouts.installing(reported);
        break;
      case 'success':
      case 'already-installed':
        await this.deviceRollouts.success(reported, reported.target);
        break;
      case 'failure':
        await this.deviceRollouts.failure(reported, caller.device.firmwareVersion, 'the Mender client reported failure');
        break;
      default:
        break;
    }
  }

  /**
   * The deployment log the client sends after a failure: kept with the device's state in the
   * rollout, whose failure message becomes the log's error lines.
   * @throws BadRequestException for a body that is not `{"messages": [...]}`; NotFoundException {@link deploymentNotFound}.
   */
  async log(caller: IdentifiedDevice, deploymentId: string, body: unknown): Promise<void> {
    const lines = readLog(body);
    if ('error' in lines) throw new BadRequestException(lines.error);
    const reported = await this.deployment(caller, deploymentId);
    this.devices.seen(caller.device);
    await this.deviceRollouts.keepLog(reported, lines);
  }

  /**
   * A download through a signed link (no credential: the client sends none): the artifact's bytes
   * as every protocol's downloads are served ({@link FirmwareDownloadService}: `Content-Length`,
   * one `Range` answered 206, never compressed), recorded for the device the link names, which is
   * then `downloading` in the rollouts that offered it.
   * @throws ForbiddenException {@link LINK_REFUSED}; NotFoundException `Firmware not found` when
   *   the firmware or the device is gone; the download's own errors (416).
   */
  async download(
    ids: { tenantId: string; firmwareId: string; deviceId: string },
    link: { expires?: string; signature?: string },
    method: string,
    headers: IncomingHttpHeaders,
  ): Promise<ArtifactDownload> {
    const numbers = [ids.tenantId, ids.firmwareId, ids.deviceId].map((text) => (/^\d{1,10}$/.test(text) ? Number(text) : null));
    if (numbers.includes(null)) throw new ForbiddenException(LINK_REFUSED);
    const [tenantId, firmwareId, deviceId] = numbers as number[];
    if (!this.links.verify(downloadPath(tenantId, firmwareId, deviceId), link.expires, link.signature)) {
      throw new ForbiddenException(LINK_REFUSED);
    }
    const [device, firmware] = await Promise.all([
      this.devices.findById(tenantId, deviceId),
      this.firmware.require(tenantId, firmwareId).catch((error: unknown) => {
        if (error instanceof NotFoundException) return null;
        throw error;
      }),
    ]);
    if (device === null || firmware === null) throw new NotFoundException(FIRMWARE_NOT_FOUND);
    const answer = await this.downloads.answer(
      { tenantId, deviceKeyId: device.deviceKeyId, device: { id: device.id, mac: device.mac }, freeSpace: null },
      { method, cid: firmware.cid, headers },
    );
    return { answer, filename: firmware.filename ?? `${firmware.version}.mender` };
  }

  /**
   * The deployment `id` of the device: a started rollout of its tenant that targets it.
   * @throws NotFoundException {@link deploymentNotFound}.
   */
  private async deployment(caller: IdentifiedDevice, id: string): Promise<ReportedRollout> {
    try {
      return await this.deviceRollouts.reported(caller.tenantId, id, caller.device.mac);
    } catch (error) {
      if (error instanceof NotFoundException && error.message === ROLLOUT_NOT_FOUND) throw new NotFoundException(deploymentNotFound(id));
      throw error;
    }
  }
}

/** The path of the download link of a firmware for a device, under the component's base URL. */
export function downloadPath(tenantId: number, firmwareId: number, deviceId: number): string {
  return `/api/devices/v1/deployments/download/${tenantId}/${firmwareId}/${deviceId}`;
}
