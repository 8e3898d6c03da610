import { ConflictException, Injectable, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { Clock } from '#src/common/clock.js';
import { isUniqueViolation } from '#src/common/unique-violation.js';
import { LedgerService, Subject } from '#src/chain/ledger.service.js';
import { UnitOfWork } from '#src/database/unit-of-work.js';
import { ArtifactStore, ArtifactTooLarge } from './artifact-store.js';
import type { Firmware } from './firmware.entity.js';
import { FirmwareRepository } from './firmware.repository.js';

/** 404 text of firmware lookups and downloads (CONTRACT.md §7). */
export const FIRMWARE_NOT_FOUND = 'Firmware not found';

/** What publishing needs besides the bytes. */
export interface PublishFirmware {
  tenantId: number;
  /** Target firmware version, 1 to 64 printable characters. */
  version: string;
  /** Device type it is built for, e.g. `ESP32`. */
  deviceType: string;
  /** Largest accepted binary, bytes. */
  maxBytes?: number;
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
  ) {}

  /**
   * Publishes a binary: stores the bytes by CID, records md5/sha256/size/CID and appends
   * `firmware.published` to the ledger in the same transaction.
   * @throws ConflictException when the tenant already published this version for this type.
   * @throws PayloadTooLargeException over `maxBytes`.
   */
  async publish(request: PublishFirmware, bytes: Readable): Promise<FirmwareView> {
    let digests;
    try {
      digests = await this.artifacts.put(bytes, request.maxBytes);
    } catch (error) {
      if (error instanceof ArtifactTooLarge) throw new PayloadTooLargeException(error.message);
      throw error;
    }
    try {
      const firmware = await this.unitOfWork.transaction(async (manager) => {
        const created = await this.firmware.insert(manager, {
          tenantId: request.tenantId,
          version: request.version,
          deviceType: request.deviceType,
          ...digests,
          createdAt: this.clock.now(),
        });
        await this.ledger.append(manager, {
          tenantId: request.tenantId,
          type: 'firmware.published',
          subject: Subject.firmware(created.id),
          state: {
            id: created.id,
            version: created.version,
            deviceType: created.deviceType,
            size: created.size,
            md5: created.md5,
            sha256: created.sha256,
            cid: created.cid,
          },
        });
        return created;
      });
      return toView(firmware);
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new ConflictException(`Firmware ${request.version} for ${request.deviceType} is already published`);
      }
      throw error;
    }
  }

  async list(tenantId: number): Promise<FirmwareView[]> {
    return (await this.firmware.list(tenantId)).map(toView);
  }

  /**
   * A firmware of the tenant by id.
   * @throws NotFoundException `Firmware not found`.
   */
  async require(tenantId: number, id: number): Promise<Firmware> {
    const firmware = await this.firmware.findById(tenantId, id);
    if (!firmware) throw new NotFoundException(FIRMWARE_NOT_FOUND);
    return firmware;
  }

  /** Id of the tenant's firmware of a type at a version, or `null`. */
  async idOfVersion(tenantId: number, deviceType: string, version: string): Promise<number | null> {
    return (await this.firmware.findByVersion(tenantId, deviceType, version))?.id ?? null;
  }

  /**
   * The tenant's artifact with this CID, for download.
   * @throws NotFoundException `Firmware not found` (also for another tenant's CID).
   */
  async requireArtifact(tenantId: number, cid: string): Promise<{ cid: string; size: number }> {
    const firmware = await this.firmware.findByCid(tenantId, cid);
    const size = firmware ? await this.artifacts.size(cid) : null;
    if (size === null) throw new NotFoundException(FIRMWARE_NOT_FOUND);
    return { cid, size };
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
  };
}
