import { Injectable, NotFoundException } from '@nestjs/common';
import type { Counted, Slice } from '#src/common/paging.js';
import { DeviceService, deviceView, type DeviceView } from '#src/device/device.service.js';
import type { RolloutStatus } from './rollout.entity.js';
import { GroupService } from './group.service.js';
import { RolloutRepository } from './rollout.repository.js';

/** Operator filters of a device list (CONTRACT.md §9). */
export interface FleetFilter {
  /** Group id or name the devices belong to. */
  group?: string;
  firmwareVersion?: string;
  deviceType?: string;
  /** Last seen at or after this time, epoch milliseconds. */
  seenSince?: number;
}

/** A rollout that targets a device, and what the device reported for it. */
export interface DeviceRolloutView {
  id: number;
  name: string;
  status: RolloutStatus;
  group: { id: number; name: string };
  firmwareId: number;
  /** Target firmware version. */
  version: string;
  /** Whether the device reported success for it (CONTRACT.md §6). */
  succeeded: boolean;
  /** ISO 8601 UTC of the success report, or `null`. */
  reportedAt: string | null;
  /** The version the device reported with it, or `null`. */
  reportedVersion: string | null;
}

/** A device with its groups and rollout history. */
export interface DeviceDetail extends DeviceView {
  /** The tenant's groups the device's mac is a member of, by name. */
  groups: { id: number; name: string }[];
  /** Rollouts that target it (through a group it is in, or that it reported success for), by id. */
  rollouts: DeviceRolloutView[];
}

/** 404 text of the operator device lookup. */
export const deviceNotFound = (mac: string): string => `Device "${mac}" not found`;

/** The devices of a tenant as operators see them: filtered lists, groups and rollout history. */
@Injectable()
export class FleetService {
  constructor(
    private readonly devices: DeviceService,
    private readonly groups: GroupService,
    private readonly rollouts: RolloutRepository,
  ) {}

  /**
   * One page of the tenant's devices matching every given filter, by mac.
   * @throws NotFoundException `Group "x" not found` for a group filter naming no group of the tenant.
   */
  async listDevices(tenantId: number, filter: FleetFilter, slice: Slice): Promise<Counted<DeviceView>> {
    const groupId = filter.group === undefined ? undefined : (await this.groups.require(tenantId, filter.group)).id;
    return this.devices.page(
      tenantId,
      { groupId, firmwareVersion: filter.firmwareVersion, deviceType: filter.deviceType, seenSince: filter.seenSince },
      slice,
    );
  }

  /**
   * One device of the tenant (canonical mac) with its groups and rollout history.
   * @throws NotFoundException `Device "mac" not found`, also for another tenant's device.
   */
  async describeDevice(tenantId: number, mac: string): Promise<DeviceDetail> {
    const device = await this.devices.describe(tenantId, mac);
    if (!device) throw new NotFoundException(deviceNotFound(mac));
    const [groups, history] = await Promise.all([
      this.rollouts.groupsOfDevice(tenantId, mac),
      this.rollouts.deviceHistory(tenantId, device),
    ]);
    return {
      ...deviceView(device),
      groups,
      rollouts: history.map((row) => ({
        id: row.id,
        name: row.name,
        status: row.status,
        group: { id: row.groupId, name: row.groupName },
        firmwareId: row.firmwareId,
        version: row.version,
        succeeded: row.reportedAt !== null,
        reportedAt: row.reportedAt === null ? null : new Date(row.reportedAt).toISOString(),
        reportedVersion: row.reportedVersion,
      })),
    };
  }
}
