import { Injectable, NotFoundException } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Clock } from '#src/platform/common/clock.js';
import type { Counted, Slice } from '#src/platform/common/paging.js';
import { isUniqueViolation } from '#src/platform/common/unique-violation.js';
import type { DeviceKeyScope } from '#src/domain/tenant/device-key-scope.js';
import { LedgerService, Subject } from '#src/domain/ledger/ledger.service.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import type { Device, DeviceVersion } from './device.entity.js';
import type { MessageResponse } from '#src/platform/common/dto/message.dto.js';
import { DeviceRepository, type DeviceFilter, type VersionCountRow } from './device.repository.js';
import { DeviceVersionReports } from './device-version-reports.js';
import { LastSeenWriter } from './last-seen-writer.js';

/** Exact outcome texts (docs/device-interface.md; `does't` is spelled as the field devices expect). */
export const DeviceMessages = {
  inserted: 'Device inserted!',
  exists: 'Device exists!',
  deleted: 'Device deleted!',
  absent: "Device does't exist!",
} as const;

/** Devices per page of {@link DeviceService.pages} (the streamed reports). */
const REPORT_PAGE_ROWS = 200;

/** A device as operators see it (docs/decisions.md §9). */
export interface DeviceView {
  mac: string;
  name: string;
  firmwareVersion: string;
  /** `dType`: the type of the key it registered with. */
  deviceType: string;
  /** ISO 8601 UTC of its last request that named it (register, next rollout, success), or `null`. */
  lastSeenAt: string | null;
  /** ISO 8601 UTC of its registration. */
  createdAt: string;
}

/** What a device says about itself when it registers (docs/decisions.md §6). */
export interface DeviceRegistration {
  /** Canonical mac. */
  mac: string;
  /** 1 to 128 characters; the mac when absent. */
  name?: string;
  /** What it runs now, 1 to 64 printable characters. */
  firmwareVersion: string;
}

/** Devices of a tenant (docs/decisions.md §6); every change is recorded on the ledger. */
@Injectable()
export class DeviceService {
  constructor(
    private readonly devices: DeviceRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly ledger: LedgerService,
    private readonly clock: Clock,
    private readonly lastSeen: LastSeenWriter,
    private readonly versionReports: DeviceVersionReports,
  ) {}

  /**
   * Registers a device under the key's tenant and device key (its type becomes `dType`).
   * An existing mac answers `Device exists!` and leaves the record unchanged, also when two
   * registrations race (the unique constraint decides); the version it reports is passed to
   * {@link DeviceVersionReports} (a rollout's confirmation).
   */
  async register(principal: DeviceKeyScope, dto: DeviceRegistration): Promise<MessageResponse> {
    try {
      await this.unitOfWork.transaction(async (manager) => {
        if (await this.devices.findByMac(principal.tenantId, dto.mac, manager)) throw new DeviceExists();
        const now = this.clock.now();
        const device = await this.devices.insert(manager, {
          tenantId: principal.tenantId,
          mac: dto.mac,
          name: dto.name ?? dto.mac,
          firmwareVersion: dto.firmwareVersion,
          deviceKeyId: principal.deviceKeyId,
          deviceType: principal.deviceType,
          lastSeenAt: now,
          createdAt: now,
        });
        await this.record(manager, device, 'device.registered');
      });
      return { message: DeviceMessages.inserted };
    } catch (error) {
      if (!(error instanceof DeviceExists || isUniqueViolation(error))) throw error;
      await this.versionReports.reported(principal.tenantId, dto.mac, dto.firmwareVersion);
      return { message: DeviceMessages.exists };
    }
  }

  /**
   * Deletes a device of the tenant.
   * @throws NotFoundException `Device does't exist!`
   */
  async delete(tenantId: number, mac: string): Promise<MessageResponse> {
    await this.unitOfWork.transaction(async (manager) => {
      const device = await this.devices.findByMac(tenantId, mac, manager);
      if (!device) throw new NotFoundException(DeviceMessages.absent);
      await this.devices.delete(manager, device.id);
      await this.record(manager, device, 'device.deleted');
    });
    return { message: DeviceMessages.deleted };
  }

  /**
   * One device of the tenant.
   * @throws NotFoundException `Device does't exist!` (also for another tenant's device).
   */
  get(tenantId: number, mac: string): Promise<Device> {
    return this.require(tenantId, mac);
  }

  /** All devices of the tenant by mac, `[]` when none. */
  list(tenantId: number): Promise<Device[]> {
    return this.devices.list(tenantId);
  }

  /**
   * One page of the tenant's devices matching `filter`, by mac (operator view, docs/decisions.md §9).
   * Last-seen times this instance still holds back are written first, so the page and the
   * `seen_since` filter see them.
   */
  async page(tenantId: number, filter: DeviceFilter, slice: Slice): Promise<Counted<DeviceView>> {
    await this.lastSeen.flush();
    const [devices, total] = await this.devices.page(tenantId, filter, slice.offset, slice.limit);
    return { items: devices.map(deviceView), total };
  }

  /**
   * The tenant's devices per firmware version and device type, with how many were seen in the
   * last hour and day before `now` (epoch ms), last-seen times held back written first (see {@link page}).
   */
  async versionCounts(tenantId: number, now: number): Promise<VersionCountRow[]> {
    await this.lastSeen.flush();
    return this.devices.versionCounts(tenantId, now - 3_600_000, now - 86_400_000);
  }

  /**
   * All devices of the tenant in the order of {@link list}, a page of `pageSize` at a time (one
   * query each). Pages are read as the consumer asks for them, so they are not one snapshot: a
   * device registered or deleted meanwhile may or may not appear. The default page is small on
   * purpose: with 1,000 rows a page, the xml report of 100,000 devices grew the server's memory by
   * 14 to 46 MiB (the young generation grows with what survives each scavenge), with 200 by 11 to
   * 23 MiB, in the same time (bench/RESULTS.md).
   */
  async *pages(tenantId: number, pageSize = REPORT_PAGE_ROWS): AsyncGenerator<Pick<Device, 'mac' | 'name' | 'firmwareVersion'>[]> {
    for (let after = ''; ;) {
      const page = await this.devices.pageAfter(tenantId, after, pageSize);
      if (page.length > 0) yield page;
      if (page.length < pageSize) return;
      after = page[page.length - 1].mac;
    }
  }

  /** The tenant's device as operators see it, last-seen time up to date (see {@link page}); `null` when absent. */
  async describe(tenantId: number, mac: string): Promise<Device | null> {
    await this.lastSeen.flush();
    return this.find(tenantId, mac);
  }

  /** The tenant's device, or `null` when absent. */
  find(tenantId: number, mac: string, manager?: EntityManager): Promise<Device | null> {
    return this.devices.findByMac(tenantId, mac, manager);
  }

  /**
   * The tenant's device, for other modules.
   * @throws NotFoundException `Device does't exist!`
   */
  async require(tenantId: number, mac: string, manager?: EntityManager): Promise<Device> {
    const device = await this.find(tenantId, mac, manager);
    if (!device) throw new NotFoundException(DeviceMessages.absent);
    return device;
  }

  /**
   * Records what a device reports it runs now and when it was seen (docs/decisions.md §6). A changed
   * version is written, with its ledger entry and the last-seen time, in one transaction
   * (`manager`, or a new one) before this resolves; an unchanged one only records the last-seen
   * time, which {@link LastSeenWriter} writes within a second. `device` is the id and the version
   * read before; the ledger entry records the device as read in the transaction.
   * @throws NotFoundException `Device does't exist!` when the version changed and the device was
   *   deleted meanwhile (nothing is written).
   */
  async reportVersion(device: DeviceVersion, firmwareVersion: string, manager?: EntityManager): Promise<void> {
    const now = this.clock.now();
    if (device.firmwareVersion === firmwareVersion) {
      this.lastSeen.seen(device.id, now);
      return;
    }
    const update = async (m: EntityManager) => {
      const current = await this.devices.findById(device.id, m);
      if (!current) throw new NotFoundException(DeviceMessages.absent);
      await this.devices.setFirmwareVersion(m, device.id, firmwareVersion, now);
      await this.record(m, { ...current, firmwareVersion }, 'device.updated');
    };
    await (manager ? update(manager) : this.unitOfWork.transaction(update));
  }

  private async record(manager: EntityManager, device: Device, type: string): Promise<void> {
    await this.ledger.append(manager, {
      tenantId: device.tenantId,
      type,
      subject: Subject.device(device.mac),
      state: { mac: device.mac, name: device.name, firmwareVersion: device.firmwareVersion, deviceType: device.deviceType },
    });
  }
}

/** The operator view of a device. */
export function deviceView(device: Device): DeviceView {
  return {
    mac: device.mac,
    name: device.name,
    firmwareVersion: device.firmwareVersion,
    deviceType: device.deviceType,
    lastSeenAt: device.lastSeenAt === null ? null : new Date(device.lastSeenAt).toISOString(),
    createdAt: new Date(device.createdAt).toISOString(),
  };
}

/** Aborts a registration transaction whose mac exists. */
class DeviceExists extends Error {}
