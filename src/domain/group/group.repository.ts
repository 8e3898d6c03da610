import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { isStoredId } from '#src/platform/common/input-rules.js';
import { isSqlite, query } from '#src/platform/database/sql.js';
import type { SqlCondition, SqlDialect } from './device-filter.js';
import { DeviceGroup, GroupMember } from './device-group.entity.js';

/**
 * How many members the group aliased `g` has, as the database keeps them counted
 * (`group_member_count`, migration GroupMemberCounts): a few rows, where counting `group_member`
 * reads every member (a group of a million: 0.1 s on SQLite, 0.3 s on PostgreSQL).
 */
const MEMBERS_OF_G = 'SELECT COALESCE(SUM(c.members), 0) FROM group_member_count c WHERE c.group_id = g.id';

/** A group with its member count. */
export interface GroupRow {
  id: number;
  name: string;
  /** A dynamic group's filter, `null` for a static group (docs/decisions.md §10.3). */
  filter: string | null;
  /** Epoch milliseconds. */
  createdAt: number;
  members: number;
}

type RawGroupRow = Record<keyof GroupRow, unknown>;

function groupRow(row: RawGroupRow): GroupRow {
  return {
    id: Number(row.id),
    name: String(row.name),
    filter: typeof row.filter === 'string' ? row.filter : null,
    createdAt: Number(row.createdAt),
    members: Number(row.members),
  };
}

/** Database access for device groups and their members (by mac). */
@Injectable()
export class GroupRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The tenant's group by id (digits) or name; `null` also for digits beyond the id column's
   * range ({@link isStoredId}: group names are never only digits). With `manager`, read in its transaction.
   */
  findGroup(tenantId: number, idOrName: string, manager: EntityManager = this.dataSource.manager): Promise<DeviceGroup | null> {
    const repository = manager.getRepository(DeviceGroup);
    if (!/^\d+$/.test(idOrName)) return repository.findOneBy({ tenantId, name: idOrName });
    const id = Number(idOrName);
    return isStoredId(id) ? repository.findOneBy({ tenantId, id }) : Promise.resolve(null);
  }

  /** Groups of a tenant with their member counts. */
  async listGroups(tenantId: number): Promise<GroupRow[]> {
    return (await this.groupsQuery(tenantId).getRawMany<RawGroupRow>()).map(groupRow);
  }

  /** One page of a tenant's groups by id, with member counts, and how many groups it has. */
  async pageGroups(tenantId: number, offset: number, limit: number): Promise<[GroupRow[], number]> {
    const rows = await this.groupsQuery(tenantId).offset(offset).limit(limit).getRawMany<RawGroupRow>();
    const total = await this.dataSource.getRepository(DeviceGroup).countBy({ tenantId });
    return [rows.map(groupRow), total];
  }

  private groupsQuery(tenantId: number) {
    return this.dataSource
      .getRepository(DeviceGroup)
      .createQueryBuilder('g')
      .select(['g.id AS id', 'g.name AS name', 'g.filter AS filter', 'g.created_at AS "createdAt"'])
      .addSelect(`(${MEMBERS_OF_G})`, 'members')
      .where('g.tenant_id = :tenantId', { tenantId })
      .orderBy('g.id', 'ASC');
  }

  /**
   * One page of a group's members by mac, each with whether a device of the tenant has that mac
   * (membership may be planned before devices register). With `after` (a keyset cursor: a member's
   * identifier), only members whose identifier sorts after it: a range scan of the primary key
   * `(group_id, mac)` from the cursor, however deep the page. Which of the page's members are
   * registered is a second read by the `(tenant_id, mac)` index: a correlated `EXISTS` in the page
   * query let PostgreSQL, with no statistics yet after a bulk import, hash every device of the
   * tenant for a page of fifty (1.1 s at a million devices). Given the group's `total` members, a
   * page by offset in their second half is read from the last one backwards (an offset reads and
   * drops every entry before it), so the deepest offset is the middle.
   */
  async pageMembers(
    tenantId: number,
    groupId: number,
    offset: number,
    limit: number,
    after?: string,
    total?: number,
  ): Promise<{ mac: string; registered: boolean }[]> {
    const page = this.dataSource
      .createQueryBuilder()
      .from(GroupMember, 'm')
      .select('m.mac', 'mac')
      .where('m.group_id = :groupId', { groupId });
    if (after !== undefined) page.andWhere('m.mac > :after', { after });
    const end = total === undefined ? 0 : Math.min(offset + limit, total);
    const fromEnd = after === undefined && total !== undefined && offset < end && total - end < offset;
    const rows = fromEnd
      ? (
          await page
            .orderBy('m.mac', 'DESC')
            .offset(total - end)
            .limit(end - offset)
            .getRawMany<{ mac: string }>()
        ).reverse()
      : await page.orderBy('m.mac', 'ASC').offset(offset).limit(limit).getRawMany<{ mac: string }>();
    const macs = rows.map((row) => row.mac);
    const registered =
      macs.length === 0
        ? []
        : await query<{ mac: string }[]>(
            this.dataSource.manager,
            `SELECT mac FROM device WHERE tenant_id = $1 AND mac IN (${macs.map((_, i) => `$${i + 2}`).join(', ')})`,
            [tenantId, ...macs],
          );
    const known = new Set(registered.map((row) => row.mac));
    return macs.map((mac) => ({ mac, registered: known.has(mac) }));
  }

  /** The tenant's groups that have `mac` as a member, by name. */
  async groupsOfDevice(tenantId: number, mac: string): Promise<{ id: number; name: string }[]> {
    const rows = await this.dataSource
      .getRepository(DeviceGroup)
      .createQueryBuilder('g')
      .innerJoin(GroupMember, 'm', 'm.group_id = g.id AND m.mac = :mac', { mac })
      .select(['g.id AS id', 'g.name AS name'])
      .where('g.tenant_id = :tenantId', { tenantId })
      .orderBy('g.name', 'ASC')
      .getRawMany<{ id: unknown; name: string }>();
    return rows.map((row) => ({ id: Number(row.id), name: row.name }));
  }

  insertGroup(manager: EntityManager, group: Omit<DeviceGroup, 'id'>): Promise<DeviceGroup> {
    return manager.save(DeviceGroup, manager.create(DeviceGroup, group));
  }

  /** Adds macs to a group; ones already in it are left as they are. */
  async addMembers(manager: EntityManager, groupId: number, macs: string[]): Promise<void> {
    for (let i = 0; i < macs.length; i += 200) {
      await manager
        .createQueryBuilder()
        .insert()
        .into(GroupMember)
        .values(macs.slice(i, i + 200).map((mac) => ({ groupId, mac })))
        .orIgnore()
        .execute();
    }
  }

  /** Removes macs from a group. */
  async removeMembers(manager: EntityManager, groupId: number, macs: string[]): Promise<void> {
    for (let i = 0; i < macs.length; i += 200) {
      await manager
        .createQueryBuilder()
        .delete()
        .from(GroupMember)
        .where('group_id = :groupId', { groupId })
        .andWhere('mac IN (:...macs)', { macs: macs.slice(i, i + 200) })
        .execute();
    }
  }

  /** How many macs the group has ({@link MEMBERS_OF_G}). */
  async memberCount(groupId: number, manager: EntityManager = this.dataSource.manager): Promise<number> {
    const rows = await query<{ members: unknown }[]>(manager, `SELECT (${MEMBERS_OF_G}) AS members FROM device_group g WHERE g.id = $1`, [
      groupId,
    ]);
    return Number(rows[0]?.members ?? 0);
  }

  /** The SQL engine, for filter conditions. */
  dialect(): SqlDialect {
    return isSqlite(this.dataSource.options.type) ? 'sqlite' : 'postgres';
  }

  /** The tenant's dynamic groups (those with a filter). */
  dynamicGroups(tenantId: number): Promise<DeviceGroup[]> {
    return this.dataSource
      .getRepository(DeviceGroup)
      .createQueryBuilder('g')
      .where('g.tenant_id = :tenantId AND g.filter IS NOT NULL', { tenantId })
      .orderBy('g.id')
      .getMany();
  }

  /** Sets a group's filter. */
  async setFilter(manager: EntityManager, groupId: number, filter: string): Promise<void> {
    await manager.update(DeviceGroup, { id: groupId }, { filter });
  }

  /**
   * Identifiers of the tenant's devices that meet `condition` (over the alias `d`), among `macs`
   * (`null`: all the tenant's devices).
   */
  async matchingMacs(manager: EntityManager, tenantId: number, condition: SqlCondition, macs: readonly string[] | null): Promise<string[]> {
    const query = manager
      .createQueryBuilder()
      .from('device', 'd')
      .select('d.mac', 'mac')
      .where('d.tenant_id = :tenantId', { tenantId })
      .andWhere(condition.sql, condition.params);
    if (macs !== null) query.andWhere('d.mac IN (:...macs)', { macs });
    return (await query.getRawMany<{ mac: string }>()).map((row) => row.mac);
  }

  /** The members of a group among `macs` (`null`: all of them). */
  async memberMacs(manager: EntityManager, groupId: number, macs: readonly string[] | null): Promise<string[]> {
    const query = manager.createQueryBuilder().from(GroupMember, 'm').select('m.mac', 'mac').where('m.group_id = :groupId', { groupId });
    if (macs !== null) query.andWhere('m.mac IN (:...macs)', { macs });
    return (await query.getRawMany<{ mac: string }>()).map((row) => row.mac);
  }
}
