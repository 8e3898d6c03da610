import { ForbiddenException, Injectable, Logger } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import parseRange from 'range-parser';
import { Clock } from '#src/platform/common/clock.js';
import { HttpErrorWithHeaders } from '#src/platform/http/http-error.filter.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import { DeviceService } from '#src/domain/device/device.service.js';
import { ArtifactStore } from '#src/domain/firmware/artifact-store.js';
import { FirmwareService, type StoredArtifact } from '#src/domain/firmware/firmware.service.js';
import { DeviceStateService } from '#src/domain/rollout/device-state.service.js';
import { FirmwareDownloadRepository } from './firmware-download.repository.js';

/** 416 text: the range lies outside the binary. */
export const RANGE_NOT_SATISFIABLE = 'Range Not Satisfiable';

/**
 * 403 text: the image does not fit the free space the updater reported. 403 because both ESP
 * updaters name it in their error ("Forbidden (403)", `HTTP_UE_SERVER_FORBIDDEN`), where any
 * other refusal becomes an anonymous "Wrong HTTP Code".
 */
export const imageTooLarge = (size: number, free: { bytes: number; header: string }): string =>
  `Firmware is ${size} bytes; the device has ${free.bytes} bytes free for it (${free.header})`;

/** Who asks for a firmware binary, as the device protocol's adapter knows it. */
export interface Downloader {
  tenantId: number;
  /** The device key of the credential; `null` for a device's own credential (a DDI target token). */
  deviceKeyId: number | null;
  /**
   * The device the download is for, when known: by id (the credential is the device's own) or
   * by the mac an updater reports in its headers; `null` when not known.
   */
  device: { id: number; mac: string } | { mac: string } | null;
  /** The free space for the image the updater reports, when it does. */
  freeSpace: { bytes: number; header: string } | null;
}

/** A download as a device protocol receives it, whichever of its routes was called. */
export interface DownloadRequest {
  /** `GET`, `HEAD` or `POST`: a HEAD answers the headers and is not recorded. */
  method: string;
  /** The CID asked for (path segment or `cid` of the body). */
  cid: string;
  /** Request headers: `Range`, `If-Range` and `If-None-Match` are read. */
  headers: IncomingHttpHeaders;
}

/** The answer to send: status, headers and, for 200/206 other than HEAD, the bytes. */
export interface DownloadAnswer {
  status: 200 | 206 | 304;
  headers: Record<string, string | number>;
  body?: Readable;
}

/**
 * The one firmware download of the IPFS component, behind `POST {ipfs_url}/firmware/download`,
 * `GET {ipfs_url}/firmware/{cid}` and `GET {ipfs_url}/ipfs/{cid}`.
 *
 * Shaped for the ESP updaters (`ESP8266httpUpdate`, `HTTPUpdate`), which read the body as exactly
 * `Content-Length` bytes, without a transfer encoding, and check it against `x-MD5` before booting
 * it: every answer with bytes carries `Content-Length` and `x-MD5`, and closes the connection after
 * the body (Pycom's OTA code reads until the connection closes).
 */
@Injectable()
export class FirmwareDownloadService {
  private readonly logger = new Logger('FirmwareDownload');

  constructor(
    private readonly firmware: FirmwareService,
    private readonly artifacts: ArtifactStore,
    private readonly devices: DeviceService,
    private readonly downloads: FirmwareDownloadRepository,
    private readonly rolloutStates: DeviceStateService,
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  /**
   * Decides the answer to a download and records it when it carries bytes.
   * - The tenant's own firmware only: another tenant's CID, an absent one or text that is not a
   *   CID is 404 `Firmware not found`.
   * - An image larger than the free space the updater reports (`x-ESP8266-free-space`,
   *   `x-ESP32-free-space`) is 403 {@link imageTooLarge}, before a byte is sent.
   * - `If-None-Match` with the ETag (the quoted CID) or `*`: 304 without a body.
   * - One byte `Range` (honoured unless `If-Range` names another tag): 206 with `Content-Range`;
   *   a range outside the binary is 416 {@link RANGE_NOT_SATISFIABLE} with `Content-Range: bytes *\/size`;
   *   several ranges or another unit get the whole binary, 200.
   * @throws NotFoundException, ForbiddenException, HttpErrorWithHeaders (416) as above.
   */
  async answer(downloader: Downloader, request: DownloadRequest): Promise<DownloadAnswer> {
    const artifact = await this.firmware.requireArtifact(downloader.tenantId, request.cid);
    if (downloader.freeSpace && artifact.size > downloader.freeSpace.bytes) {
      throw new ForbiddenException(imageTooLarge(artifact.size, downloader.freeSpace));
    }
    const etag = `"${artifact.cid}"`;
    const headers: Record<string, string | number> = {
      'Content-Type': 'application/octet-stream',
      ETag: etag,
      'Accept-Ranges': 'bytes',
      'Cache-Control': 'private, max-age=31536000, immutable',
      'x-MD5': artifact.md5,
    };
    const ifNoneMatch = header(request.headers['if-none-match']);
    if (ifNoneMatch?.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')) {
      return { status: 304, headers: { ETag: etag } };
    }
    const range = this.rangeOf(request.headers, artifact, etag);
    const whole = range === undefined;
    const { start, end } = range ?? { start: 0, end: artifact.size - 1 };
    Object.assign(headers, {
      'Content-Length': end - start + 1,
      ...(whole ? {} : { 'Content-Range': `bytes ${start}-${end}/${artifact.size}` }),
      Connection: 'close',
    });
    const status = whole ? 200 : 206;
    if (request.method === 'HEAD') return { status, headers };
    await this.record(downloader, artifact, start, end);
    return { status, headers, body: this.artifacts.open(artifact.cid, whole ? undefined : { start, end }) };
  }

  /** The one byte range to send, `undefined` for the whole binary. @throws HttpErrorWithHeaders 416. */
  private rangeOf(headers: IncomingHttpHeaders, artifact: StoredArtifact, etag: string): { start: number; end: number } | undefined {
    const range = header(headers.range);
    const ifRange = header(headers['if-range']);
    if (!range || (ifRange && ifRange.trim() !== etag)) return undefined;
    const ranges = parseRange(artifact.size, range, { combine: true });
    if (ranges === -1) {
      throw new HttpErrorWithHeaders(416, RANGE_NOT_SATISFIABLE, { 'Content-Range': `bytes */${artifact.size}` });
    }
    if (Array.isArray(ranges) && ranges.type === 'bytes' && ranges.length === 1) return ranges[0];
    return undefined;
  }

  /**
   * Records the download, attributed to the downloader's device if the tenant has it; that device
   * is then `downloading` in the active rollouts of this firmware that offered it (docs/decisions.md §10).
   */
  private async record(downloader: Downloader, artifact: StoredArtifact, start: number, end: number) {
    const named = downloader.device;
    const device = named === null ? null : 'id' in named ? named : await this.devices.find(downloader.tenantId, named.mac);
    await this.unitOfWork.transaction((manager) =>
      this.downloads.insert(manager, {
        tenantId: downloader.tenantId,
        deviceKeyId: downloader.deviceKeyId,
        deviceId: device?.id ?? null,
        mac: named?.mac ?? null,
        firmwareId: artifact.firmwareId,
        cid: artifact.cid,
        rangeStart: start,
        rangeEnd: end,
        requestedAt: this.clock.now(),
      }),
    );
    if (device) await this.rolloutStates.downloading(device, artifact.firmwareId);
    this.logger.debug(`${artifact.cid} bytes ${start}-${end} to ${named?.mac ?? `device key ${String(downloader.deviceKeyId)}`}`);
  }
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
