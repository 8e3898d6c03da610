import type { EntityManager } from 'typeorm';
import { BadRequestException, ConflictException, Inject, Injectable, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { pipeline, type Readable } from 'node:stream';
import { Clock } from '#src/platform/common/clock.js';
import type { Counted, Slice } from '#src/platform/common/paging.js';
import { isUniqueViolation } from '#src/platform/common/unique-violation.js';
import type { Actor } from '#src/domain/ledger/ledger-actor.js';
import { LedgerService, Subject } from '#src/domain/ledger/ledger.service.js';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import { readArtifactVerifyKey } from '#src/platform/crypto/public-key.js';
import { TenantRepository } from '#src/domain/tenant/tenant.repository.js';
import { ArtifactEmpty, ArtifactStore, ArtifactTooLarge } from './artifact-store.js';
import type { FirmwareDigests } from './firmware-digest.js';
import { MalformedMenderArtifact, menderArtifactReader, type MenderArtifactInfo } from './mender-artifact.js';
import type { Firmware } from './firmware.entity.js';
import { FirmwareRepository } from './firmware.repository.js';

/** 404 text of firmware lookups and downloads (docs/decisions.md §7). */
export const FIRMWARE_NOT_FOUND = 'Firmware not found';

/** 400 text of publishing a binary without a byte. */
export const FIRMWARE_EMPTY = 'Firmware binary is empty';

/** 413 text of publishing a binary over `FIRMWARE_MAX_BYTES`. */
export const firmwareTooLarge = (maxBytes: number): string => `Firmware binary is larger than ${maxBytes} bytes (FIRMWARE_MAX_BYTES)`;

/** 409 text of publishing a version the tenant already published for the device type. */
export const firmwareAlreadyPublished = (version: string, deviceType: string): string =>
  `Firmware ${version} for ${deviceType} is already published`;

/** What publishing needs besides the bytes. */
export interface PublishFirmware {
  tenantId: number;
  /** Target firmware version, 1 to 64 printable characters. */
  version: string;
  /** Device type it is built for, e.g. `ESP32`. */
  deviceType: string;
  /**
   * Name of the file it comes from (`fw-1.2.0.swu`), kept for hawkBit DDI devices
   * (docs/decisions.md §12): 1 to 255 characters, no `/`, `\\` or control character, not `.` or `..`.
   */
  filename?: string;
  /**
   * Size the sender announced, bytes (an HTTP `Content-Length`, a file's size): over the limit,
   * publishing is refused before a byte is read.
   */
  declaredBytes?: number;
  /** Who publishes it (recorded on the ledger). */
  actor?: Actor;
}

/** What publishing a Mender artifact needs besides the bytes (its version and device type come from its header). */
export interface PublishMenderArtifact extends Omit<PublishFirmware, 'version' | 'deviceType'> {
  /** The device type of the firmware, when the artifact is compatible with several: one of them. */
  deviceType?: string;
  /** When given, it must be the artifact's name. */
  version?: string;
}

/** 400 text of a file that is not a Mender artifact firmledger publishes (docs/decisions.md §13). */
export const menderArtifactRefused = (reason: string): string => `Mender artifact refused: ${reason}`;

/** A tenant's firmware whose bytes are stored, as a download needs it. */
export interface StoredArtifact {
  firmwareId: number;
  cid: string;
  /** Bytes. */
  size: number;
  /** Lowercase hex MD5 of the bytes. */
  md5: string;
}

/** A firmware as operators see it. */
export interface FirmwareView {
  id: number;
  version: string;
  deviceType: string;
  size: number;
  md5: string;
  sha256: string;
  cid: string;
  createdAt: string;
  /** The file name DDI devices see ({@link artifactFilename}). */
  filename: string;
  /** What its Mender artifact header says, `null` for firmware that is not a Mender artifact (docs/decisions.md §13). */
  menderArtifact: MenderArtifactInfo | null;
  /** Marked as a rollback target: a rollback policy may name it (docs/decisions.md §10.4). */
  rollbackTarget: boolean;
}

/** A firmware as a hawkBit DDI artifact (docs/decisions.md §12): its file, size and digests. */
export interface DdiArtifact extends StoredArtifact {
  version: string;
  deviceType: string;
  /** {@link artifactFilename}. */
  filename: string;
  /** Lowercase hex SHA-1. */
  sha1: string;
  /** Lowercase hex SHA-256. */
  sha256: string;
}

/** 400 text of a bad firmware file name. */
export const INVALID_FILENAME = 'filename must be 1 to 255 characters without /, \\ or control characters, and not . or ..';

/** Whether text may be a firmware's file name (see {@link PublishFirmware.filename}). */
export function isFirmwareFilename(text: string): boolean {
  return text.length >= 1 && text.length <= 255 && !/[/\\\p{Cc}]/u.test(text) && text !== '.' && text !== '..';
}

/**
 * The file name DDI devices see for a firmware: the one it was published from, or, for firmware
 * published without one, `<device type>-<version>.bin` with characters a file name cannot hold
 * replaced by `_`.
 */
export function artifactFilename(firmware: Pick<Firmware, 'filename' | 'deviceType' | 'version'>): string {
  return firmware.filename ?? `${firmware.deviceType}-${firmware.version}.bin`.replace(/[/\\\p{Cc}]/gu, '_');
}

/** Firmware artifacts: publishing (digests, CID, storage, ledger) and lookups. */
@Injectable()
export class FirmwareService {
  constructor(
    private readonly firmware: FirmwareRepository,
    private readonly artifacts: ArtifactStore,
    private readonly unitOfWork: UnitOfWork,
    private readonly ledger: LedgerService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly tenants: TenantRepository,
  ) {}

  /**
   * Publishes a binary: streams the bytes to storage by CID (never whole in memory), records
   * md5/sha256/size/CID and appends `firmware.published` to the ledger in the same transaction.
   * The size limit is `FIRMWARE_MAX_BYTES` for every caller (operator API and CLI). A refused
   * binary leaves nothing behind: no stored bytes, no firmware record, no ledger entry.
   * @throws PayloadTooLargeException when `declaredBytes` is over the limit (before reading) or
   *   as soon as the bytes read cross it.
   * @throws ConflictException when the tenant already published this version for this type
   *   (checked before reading, and again by the unique index).
   * @throws BadRequestException `Firmware binary is empty` for a stream without a byte; any error
   *   of the stream itself is passed on.
   */
  async publish(request: PublishFirmware, bytes: Readable): Promise<FirmwareView> {
    this.checkBeforeReading(request);
    if (await this.firmware.findByVersion(request.tenantId, request.deviceType, request.version)) {
      throw new ConflictException(firmwareAlreadyPublished(request.version, request.deviceType));
    }
    const digests = await this.store(bytes);
    return this.record(request, digests, null);
  }

  /**
   * Publishes a Mender artifact (format version 3, docs/decisions.md §13) as firmware: its bytes
   * are stored as {@link publish} stores a binary while its header is read
   * ({@link menderArtifactReader}); the artifact's name is the firmware's version, and its
   * device type is the one the artifact is compatible with (or, when it lists several, the one
   * named). Whether it is signed, and the key its signature was checked with, are kept. A tenant
   * with an artifact verification key takes only artifacts signed with it.
   * @throws BadRequestException {@link menderArtifactRefused} for an artifact that is not one (or
   *   not signed as the tenant requires), or whose name or device types do not fit what was given;
   *   the errors of {@link publish}.
   */
  async publishMenderArtifact(request: PublishMenderArtifact, bytes: Readable): Promise<FirmwareView> {
    this.checkBeforeReading(request);
    const tenant = await this.tenants.findTenant(request.tenantId);
    const verifyKey = tenant?.artifactVerifyKey ? readArtifactVerifyKey(tenant.artifactVerifyKey) : null;
    const reader = menderArtifactReader(verifyKey);
    let digests: FirmwareDigests;
    try {
      // Errors of `bytes` reach the store through the reader, which pipeline destroys with them.
      digests = await this.store(pipeline(bytes, reader.stream, () => undefined));
    } catch (error) {
      if (error instanceof MalformedMenderArtifact) throw new BadRequestException(menderArtifactRefused(error.message));
      throw error;
    }
    const info = await reader.info;
    if (request.version !== undefined && request.version !== info.artifactName) {
      throw new BadRequestException(`version must be the artifact’s name, ${info.artifactName}, for a Mender artifact`);
    }
    const deviceType = request.deviceType ?? (info.deviceTypesCompatible.length === 1 ? info.deviceTypesCompatible[0] : undefined);
    if (deviceType === undefined || !info.deviceTypesCompatible.includes(deviceType)) {
      throw new BadRequestException(
        `device_type must be one the artifact is compatible with: ${info.deviceTypesCompatible.join(', ')}` +
          (request.deviceType === undefined ? ' (it lists several: name one)' : ''),
      );
    }
    return this.record(
      { ...request, version: info.artifactName, deviceType, filename: request.filename ?? `${info.artifactName}.mender` },
      digests,
      info,
    );
  }

  /** What is refused before a byte is read: a bad file name, a declared size over the limit. */
  private checkBeforeReading(request: Pick<PublishFirmware, 'filename' | 'declaredBytes'>): void {
    if (request.filename !== undefined && !isFirmwareFilename(request.filename)) throw new BadRequestException(INVALID_FILENAME);
    if (request.declaredBytes !== undefined && request.declaredBytes > this.config.firmwareMaxBytes) {
      throw new PayloadTooLargeException(firmwareTooLarge(this.config.firmwareMaxBytes));
    }
  }

  /** Stores the bytes by CID within `FIRMWARE_MAX_BYTES`; their digests. */
  private async store(bytes: Readable): Promise<FirmwareDigests> {
    const maxBytes = this.config.firmwareMaxBytes;
    try {
      return await this.artifacts.put(bytes, maxBytes);
    } catch (error) {
      if (error instanceof ArtifactTooLarge) throw new PayloadTooLargeException(firmwareTooLarge(maxBytes));
      if (error instanceof ArtifactEmpty) throw new BadRequestException(FIRMWARE_EMPTY);
      throw error;
    }
  }

  /** The firmware record and its `firmware.published` ledger entry, in one transaction. */
  private async record(request: PublishFirmware, digests: FirmwareDigests, mender: MenderArtifactInfo | null): Promise<FirmwareView> {
    try {
      const firmware = await this.unitOfWork.transaction(async (manager) => {
        const created = await this.firmware.insert(manager, {
          tenantId: request.tenantId,
          version: request.version,
          deviceType: request.deviceType,
          ...digests,
          createdAt: this.clock.now(),
          filename: request.filename ?? null,
          menderArtifact: mender === null ? null : JSON.stringify(mender),
          rollbackTarget: false,
        });
        await this.ledger.append(manager, {
          tenantId: request.tenantId,
          type: 'firmware.published',
          subject: Subject.firmware(created.id),
          actor: request.actor,
          state: {
            id: created.id,
            version: created.version,
            deviceType: created.deviceType,
            size: created.size,
            md5: created.md5,
            sha256: created.sha256,
            cid: created.cid,
            ...(created.filename === null ? {} : { filename: created.filename }),
            ...(mender === null
              ? {}
              : {
                  menderArtifact: {
                    artifactName: mender.artifactName,
                    deviceTypesCompatible: mender.deviceTypesCompatible,
                    signed: mender.signed,
                    verifiedWith: mender.verifiedWith,
                  },
                }),
          },
        });
        return created;
      });
      return toView(firmware);
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new ConflictException(firmwareAlreadyPublished(request.version, request.deviceType));
      }
      throw error;
    }
  }

  async list(tenantId: number): Promise<FirmwareView[]> {
    return (await this.firmware.list(tenantId)).map(toView);
  }

  /** One page of the tenant's firmware, oldest first, and how many there are in all. */
  async page(tenantId: number, slice: Slice): Promise<Counted<FirmwareView>> {
    const [rows, total] = await this.firmware.page(tenantId, slice.offset, slice.limit);
    return { items: rows.map(toView), total };
  }

  /**
   * A firmware of the tenant by id, as operators see it.
   * @throws NotFoundException `Firmware not found`.
   */
  async get(tenantId: number, id: number): Promise<FirmwareView> {
    return toView(await this.require(tenantId, id));
  }

  /**
   * Marks a firmware as a rollback target, or takes the mark away (docs/decisions.md §10.4): only a
   * marked firmware may be named by a rollback policy, and so go down in version without the
   * operator marking a rollout as a downgrade. Recorded on the ledger (`firmware.rollback_target`).
   * @throws NotFoundException `Firmware not found`.
   */
  async setRollbackTarget(tenantId: number, id: number, rollbackTarget: boolean, actor?: Actor): Promise<FirmwareView> {
    const firmware = await this.require(tenantId, id);
    await this.unitOfWork.transaction(async (manager) => {
      await this.firmware.setRollbackTarget(manager, id, rollbackTarget);
      await this.ledger.append(manager, {
        tenantId,
        type: 'firmware.rollback_target',
        subject: Subject.firmware(id),
        actor,
        state: { id, version: firmware.version, deviceType: firmware.deviceType, rollbackTarget },
      });
    });
    return toView({ ...firmware, rollbackTarget });
  }

  /**
   * A firmware of the tenant by id (with `manager`, read in its transaction).
   * @throws NotFoundException `Firmware not found`.
   */
  async require(tenantId: number, id: number, manager?: EntityManager): Promise<Firmware> {
    const firmware = await this.firmware.findById(tenantId, id, manager);
    if (!firmware) throw new NotFoundException(FIRMWARE_NOT_FOUND);
    return firmware;
  }

  /** A firmware of the tenant by id, `null` when it has none with that id. */
  find(tenantId: number, id: number): Promise<Firmware | null> {
    return this.firmware.findById(tenantId, id);
  }

  /** Id of the tenant's firmware of a type at a version, or `null`. */
  async idOfVersion(tenantId: number, deviceType: string, version: string): Promise<number | null> {
    return (await this.firmware.findByVersion(tenantId, deviceType, version))?.id ?? null;
  }

  /**
   * The tenant's firmware `id` as a DDI artifact, its SHA-1 computed from the stored bytes (and
   * kept) for firmware published before SHA-1s were kept.
   * @throws NotFoundException `Firmware not found` (also another tenant's, or bytes gone from storage).
   */
  async ddiArtifact(tenantId: number, id: number): Promise<DdiArtifact> {
    const firmware = await this.firmware.findById(tenantId, id);
    const size = firmware ? await this.artifacts.size(firmware.cid) : null;
    if (!firmware || size === null) throw new NotFoundException(FIRMWARE_NOT_FOUND);
    let sha1 = firmware.sha1;
    if (sha1 === null) {
      const hash = createHash('sha1');
      for await (const chunk of this.artifacts.open(firmware.cid)) hash.update(chunk as Buffer);
      sha1 = hash.digest('hex');
      await this.firmware.setSha1(firmware.id, sha1);
    }
    return {
      firmwareId: firmware.id,
      cid: firmware.cid,
      size,
      md5: firmware.md5,
      sha1,
      sha256: firmware.sha256,
      version: firmware.version,
      deviceType: firmware.deviceType,
      filename: artifactFilename(firmware),
    };
  }

  /**
   * The tenant's stored artifact with this CID, for download.
   * @throws NotFoundException `Firmware not found` (also for another tenant's CID, or bytes gone from storage).
   */
  async requireArtifact(tenantId: number, cid: string): Promise<StoredArtifact> {
    const firmware = await this.firmware.findByCid(tenantId, cid);
    const size = firmware ? await this.artifacts.size(cid) : null;
    if (!firmware || size === null) throw new NotFoundException(FIRMWARE_NOT_FOUND);
    return { firmwareId: firmware.id, cid, size, md5: firmware.md5 };
  }
}

function toView(f: Firmware): FirmwareView {
  return {
    id: f.id,
    version: f.version,
    deviceType: f.deviceType,
    size: f.size,
    md5: f.md5,
    sha256: f.sha256,
    cid: f.cid,
    createdAt: new Date(f.createdAt).toISOString(),
    filename: artifactFilename(f),
    menderArtifact: menderArtifactOf(f),
    rollbackTarget: f.rollbackTarget,
  };
}

/** What a firmware's Mender artifact header says, `null` when it is not a Mender artifact. */
export function menderArtifactOf(firmware: Pick<Firmware, 'menderArtifact'>): MenderArtifactInfo | null {
  return firmware.menderArtifact === null ? null : (JSON.parse(firmware.menderArtifact) as MenderArtifactInfo);
}
