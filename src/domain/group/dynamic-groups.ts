import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DeviceChanges } from '#src/domain/device/device-changes.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import type { DeviceGroup } from './device-group.entity.js';
import { filterCondition, parseFilter } from './device-filter.js';
import { GroupChanges } from './group-changes.js';
import { GroupRepository } from './group.repository.js';

/** Devices per statement when the members of a group are recomputed for some devices. */
const MACS_PER_QUERY = 500;

/**
 * Keeps the members of dynamic groups materialised (docs/decisions.md §10.3): a dynamic group's
 * `group_member` rows are the tenant's devices that match its filter now, so the target rule, the
 * wave counts and everything else that reads members works as for a static group. The one
 * recomputation is {@link refresh}: called when a group's filter is set, and (through
 * {@link DeviceChanges}) when a device registers, is deleted, or its name, firmware version,
 * attributes or labels change. Devices that join are told to {@link GroupChanges} as members added
 * to a static group are: they become targets of the last wave of the group's running rollouts.
 */
@Injectable()
export class DynamicGroups implements OnModuleInit {
  constructor(
    private readonly repository: GroupRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly changes: GroupChanges,
    private readonly deviceChanges: DeviceChanges,
  ) {}

  onModuleInit(): void {
    this.deviceChanges.listen((tenantId, macs) => this.devicesChanged(tenantId, macs));
  }

  /** Recomputes, for the devices `macs` of the tenant (`null`: all), the members of each of its dynamic groups. */
  async devicesChanged(tenantId: number, macs: readonly string[] | null): Promise<void> {
    const groups = await this.repository.dynamicGroups(tenantId);
    for (const group of groups) {
      if (macs === null) await this.refresh(group, null);
      else for (let i = 0; i < macs.length; i += MACS_PER_QUERY) await this.refresh(group, macs.slice(i, i + MACS_PER_QUERY));
    }
  }

  /**
   * Recomputes the members of the dynamic group `group` among the devices `macs` (`null`: all):
   * adds the devices that match its filter, removes the members that do not (also identifiers no
   * device has any more), and tells {@link GroupChanges} what changed. A static group is left as it is.
   */
  async refresh(group: Pick<DeviceGroup, 'id' | 'tenantId' | 'filter'>, macs: readonly string[] | null): Promise<void> {
    if (group.filter === null) return;
    const condition = filterCondition(parseFilter(group.filter), 'd', this.repository.dialect());
    const change = await this.unitOfWork.transaction(async (manager) => {
      const matching = new Set(await this.repository.matchingMacs(manager, group.tenantId, condition, macs));
      const members = new Set(await this.repository.memberMacs(manager, group.id, macs));
      const added = [...matching].filter((mac) => !members.has(mac));
      const removed = [...members].filter((mac) => !matching.has(mac));
      if (added.length > 0) await this.repository.addMembers(manager, group.id, added);
      if (removed.length > 0) await this.repository.removeMembers(manager, group.id, removed);
      return { added, removed };
    });
    if (change.added.length > 0 || change.removed.length > 0) await this.changes.changed(group.id, change);
  }
}
