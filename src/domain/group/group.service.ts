import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { FieldException } from '#src/platform/http/http-error.filter.js';
import { Clock } from '#src/platform/common/clock.js';
import { canonicalIdentifier } from '#src/platform/common/device-identifier.js';
import type { Counted, CursorCounted, KeysetSlice, Slice } from '#src/platform/common/paging.js';
import { isUniqueViolation } from '#src/platform/common/unique-violation.js';
import type { Actor } from '#src/domain/ledger/ledger-actor.js';
import { LedgerService, Subject } from '#src/domain/ledger/ledger.service.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import type { EntityManager } from 'typeorm';
import type { DeviceGroup } from './device-group.entity.js';
import { GroupChanges } from './group-changes.js';
import { FilterSyntaxError, parseFilter } from './device-filter.js';
import { DynamicGroups } from './dynamic-groups.js';
import { GroupRepository, type GroupRow } from './group.repository.js';

/**
 * Macs named by one ledger entry of a membership change: a larger change is recorded as several
 * entries, so each stays well below the 65,535 bytes an entry may hold (about 22 bytes a mac).
 */
export const MACS_PER_ENTRY = 2000;

/** `macs` in slices of {@link MACS_PER_ENTRY}. */
const entrySlices = (macs: string[]): string[][] =>
  Array.from({ length: Math.ceil(macs.length / MACS_PER_ENTRY) }, (_, i) => macs.slice(i * MACS_PER_ENTRY, (i + 1) * MACS_PER_ENTRY));

/** A group as operators see it. */
export interface GroupView {
  id: number;
  name: string;
  /** A dynamic group's filter (its members are whoever matches it now), `null` for a static group (docs/decisions.md §10.3). */
  filter: string | null;
  /** Member count. */
  members: number;
  /** ISO 8601, UTC. */
  createdAt: string;
}

/** A member of a group: a mac, and whether a device of the tenant has registered with it. */
export interface GroupMemberView {
  mac: string;
  registered: boolean;
}

/** A group with one page of its members. */
export interface GroupDetail extends GroupView {
  memberMacs: CursorCounted<GroupMemberView>;
}

/** Device groups and membership by device identifier; membership can be planned before devices register. */
@Injectable()
export class GroupService {
  constructor(
    private readonly repository: GroupRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly ledger: LedgerService,
    private readonly clock: Clock,
    private readonly changes: GroupChanges,
    private readonly dynamic: DynamicGroups,
  ) {}

  /**
   * Creates a group, with initial members when `macs` (device identifiers: hardware addresses in
   * any notation, or controller ids) are given: all in one transaction, so a bad one creates nothing.
   * @throws FieldException (400, field `name` or `macs`) for a bad name or naming the first member that is not a device
   *   identifier; ConflictException when the tenant has a group of that name.
   * With `filter` the group is dynamic (docs/decisions.md §10.3): its members are the devices that
   * match the filter, now and later, and it takes no `macs`.
   * @throws FieldException (400, field `filter`) for a filter that does not parse (with the column),
   *   or (field `macs`) for members given with a filter.
   * @param actor who creates it (recorded on the ledger).
   */
  async create(tenantId: number, name: string, macs: readonly string[] = [], actor?: Actor, filter?: string): Promise<GroupView> {
    if (name.length < 1 || name.length > 128 || /^\d+$/.test(name)) {
      throw new FieldException('name', 'group name must be 1 to 128 characters and not only digits');
    }
    if (filter !== undefined) {
      checkFilter(filter);
      if (macs.length > 0)
        throw new FieldException('macs', "a dynamic group's members are the devices that match its filter: give no macs");
    }
    const members = canonicalIdentifiers(macs);
    try {
      const group = await this.unitOfWork.transaction((manager) => this.insert(manager, tenantId, name, members, actor, filter));
      if (group.filter !== null) {
        await this.dynamic.refresh(group, null);
        return groupView({ ...group, members: await this.repository.memberCount(group.id) });
      }
      return groupView({ ...group, members: members.length });
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictException(`Group "${name}" exists`);
      throw error;
    }
  }

  /**
   * Creates a static group of `members` (canonical identifiers) inside the caller's transaction,
   * with its ledger entries: a rollback rollout's devices (docs/decisions.md §10.4). When the tenant
   * has a group of that name, the first free of `<name> (2)`, `<name> (3)`… is taken.
   */
  async createWithin(
    manager: EntityManager,
    tenantId: number,
    name: string,
    members: readonly string[],
    actor?: Actor,
  ): Promise<DeviceGroup> {
    let free = name;
    for (let n = 2; await this.repository.findGroup(tenantId, free, manager); n++) free = `${name} (${n})`;
    return this.insert(manager, tenantId, free, members, actor);
  }

  /** The group row, its members and their ledger entries, in `manager`'s transaction. */
  private async insert(
    manager: EntityManager,
    tenantId: number,
    name: string,
    members: readonly string[],
    actor?: Actor,
    filter?: string,
  ): Promise<DeviceGroup> {
    const created = await this.repository.insertGroup(manager, { tenantId, name, createdAt: this.clock.now(), filter: filter ?? null });
    await this.ledger.append(manager, {
      tenantId,
      type: 'group.created',
      subject: Subject.group(created.id),
      actor,
      state: filter === undefined ? { id: created.id, name } : { id: created.id, name, filter },
    });
    if (members.length > 0) {
      await this.repository.addMembers(manager, created.id, [...members]);
      for (const slice of entrySlices([...members])) {
        await this.ledger.append(manager, {
          tenantId,
          type: 'group.members-added',
          subject: Subject.group(created.id),
          actor,
          state: { id: created.id, name, macs: slice },
        });
      }
    }
    return created;
  }

  /**
   * Adds devices by identifier (hardware addresses in any notation, controller ids) to a group.
   * @throws FieldException (400, field `macs`) naming the first one that is not a device identifier.
   * @param actor who adds them (recorded on the ledger).
   */
  async addMembers(tenantId: number, groupRef: string, macs: string[], actor?: Actor): Promise<GroupView> {
    return this.changeMembers(tenantId, groupRef, macs, 'group.members-added', actor);
  }

  /** Removes macs from a group; `actor` is who removes them (recorded on the ledger). */
  async removeMembers(tenantId: number, groupRef: string, macs: string[], actor?: Actor): Promise<GroupView> {
    return this.changeMembers(tenantId, groupRef, macs, 'group.members-removed', actor);
  }

  /**
   * Sets the filter of a dynamic group (docs/decisions.md §10.3) and recomputes its members: devices
   * that match join (targets of the last wave of its running rollouts), members that do not leave.
   * @throws FieldException (400, field `filter`) for a filter that does not parse; NotFoundException;
   *   ConflictException for a static group.
   */
  async setFilter(tenantId: number, groupRef: string, filter: string, actor?: Actor): Promise<GroupView> {
    checkFilter(filter);
    const group = await this.require(tenantId, groupRef);
    if (group.filter === null) throw new ConflictException(`Group "${group.name}" is static: its members are set by identifier`);
    await this.unitOfWork.transaction(async (manager) => {
      await this.repository.setFilter(manager, group.id, filter);
      await this.ledger.append(manager, {
        tenantId,
        type: 'group.filter-set',
        subject: Subject.group(group.id),
        actor,
        state: { id: group.id, name: group.name, filter },
      });
    });
    await this.dynamic.refresh({ ...group, filter }, null);
    return groupView({ ...group, filter, members: await this.repository.memberCount(group.id) });
  }

  async list(tenantId: number): Promise<GroupView[]> {
    return (await this.repository.listGroups(tenantId)).map(groupView);
  }

  /** One page of the tenant's groups by id, with member counts. */
  async page(tenantId: number, slice: Slice): Promise<Counted<GroupView>> {
    const [groups, total] = await this.repository.pageGroups(tenantId, slice.offset, slice.limit);
    return { items: groups.map(groupView), total };
  }

  /**
   * A group (id or name) with one page of its members by mac (by offset, or after the cursor
   * `members.after`, docs/decisions.md §9), and `next`, the cursor of the page after it (`null`: none follows).
   * @throws NotFoundException `Group "x" not found`.
   */
  async get(tenantId: number, groupRef: string, members: KeysetSlice): Promise<GroupDetail> {
    const group = await this.require(tenantId, groupRef);
    const total = await this.repository.memberCount(group.id);
    const rows = await this.repository.pageMembers(tenantId, group.id, members.offset, members.limit + 1, members.after, total);
    const items = rows.slice(0, members.limit);
    const next = rows.length > members.limit ? items[items.length - 1].mac : null;
    return { ...groupView({ ...group, members: total }), memberMacs: { items, total, next } };
  }

  /** The tenant's groups that have `mac` (canonical) as a member, by name. */
  groupsOfDevice(tenantId: number, mac: string): Promise<{ id: number; name: string }[]> {
    return this.repository.groupsOfDevice(tenantId, mac);
  }

  /** @throws NotFoundException for an unknown group of the tenant. */
  async require(tenantId: number, groupRef: string): Promise<DeviceGroup> {
    const group = await this.repository.findGroup(tenantId, groupRef);
    if (!group) throw new NotFoundException(`Group "${groupRef}" not found`);
    return group;
  }

  private async changeMembers(tenantId: number, groupRef: string, macs: string[], type: string, actor?: Actor): Promise<GroupView> {
    const unique = canonicalIdentifiers(macs);
    const group = await this.require(tenantId, groupRef);
    if (group.filter !== null) {
      throw new ConflictException(`Group "${group.name}" is dynamic: its members are the devices that match its filter`);
    }
    const members = await this.unitOfWork.transaction(async (manager) => {
      if (type === 'group.members-added') await this.repository.addMembers(manager, group.id, unique);
      else await this.repository.removeMembers(manager, group.id, unique);
      for (const slice of entrySlices(unique)) {
        await this.ledger.append(manager, {
          tenantId,
          type,
          subject: Subject.group(group.id),
          actor,
          state: { id: group.id, name: group.name, macs: slice },
        });
      }
      return this.repository.memberCount(group.id, manager);
    });
    await this.changes.changed(group.id, type === 'group.members-added' ? { added: unique, removed: [] } : { added: [], removed: unique });
    return groupView({ ...group, members });
  }
}

/** 400 text of a member that is neither a hardware address nor a controller id (docs/decisions.md §11). */
export const notAnIdentifier = (text: string): string =>
  `"${text}" is not a device identifier: a hardware address (EUI-48 or EUI-64) or a controller id`;

/**
 * Canonical, de-duplicated device identifiers (docs/decisions.md §6, §11): hardware addresses in
 * any notation become canonical macs, controller ids stay as they are.
 * @throws FieldException (400, field `macs`) naming the first text that is neither ({@link notAnIdentifier}).
 */
function canonicalIdentifiers(texts: readonly string[]): string[] {
  const canonical = texts.map((text) => {
    const identifier = canonicalIdentifier(text.trim());
    if (!identifier) throw new FieldException('macs', notAnIdentifier(text));
    return identifier;
  });
  return [...new Set(canonical)];
}

/**
 * Checks a dynamic group's filter.
 * @throws FieldException (400, field `filter`) with the parse error and its column.
 */
function checkFilter(filter: string): void {
  try {
    parseFilter(filter);
  } catch (error) {
    if (error instanceof FilterSyntaxError) throw new FieldException('filter', `filter: ${error.message}`);
    throw error;
  }
}

/** A group (row or entity with its member count) as operators see it. */
function groupView(row: GroupRow): GroupView {
  return { id: row.id, name: row.name, filter: row.filter, members: row.members, createdAt: new Date(row.createdAt).toISOString() };
}
