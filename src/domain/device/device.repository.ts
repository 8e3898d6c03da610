import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { PreparedRead } from '#src/platform/database/prepared-read.js';
import { isSqlite, query } from '#src/platform/database/sql.js';
import { Device, type DeviceProtocol } from './device.entity.js';

/** Operator filters of a device list (docs/decisions.md §9); every one given must hold. */
export interface DeviceFilter {
  /** Member of this group (by id). */
  groupId?: number;
  firmwareVersion?: string;
  deviceType?: string;
  /** Last seen at or after this time, epoch milliseconds. */
  seenSince?: number;
  /** Not seen since this time (last seen before it, or never), epoch milliseconds. */
  notSeenSince?: number;
  /** Part of the name or of the identifier (any case), or hex digits of the mac (separators ignored). */
  text?: string;
}

/** Devices of one firmware version and device type, and how many of them were seen since a time. */
export interface VersionCountRow {
  firmwareVersion: string;
  deviceType: string;
  devices: number;
  seenSinceDay: number;
}

/** A tenant's devices per firmware version and device type, and how many were seen since two times. */
export interface FleetCounts {
  versions: VersionCountRow[];
  seenSinceHour: number;
  seenSinceDay: number;
}

/**
 * Devices of a tenant ($1) per firmware version and device type, from the kept counts
 * (`device_count`, migration DeviceCounts: a few rows per version and type, their shards summed).
 */
const KEPT_VERSION_COUNTS = `SELECT firmware_version, device_type, SUM(devices) AS devices FROM device_count
  WHERE tenant_id = $1 GROUP BY firmware_version, device_type HAVING SUM(devices) <> 0`;

/**
 * Which of a tenant's ($1) devices each part of the fleet overview reads, as `WHERE` conditions
 * on one range of the covering index `(tenant_id, last_seen_at, firmware_version, device_type)`:
 * never seen, last seen before $2, or at or after $2 (epoch ms). The "not seen since" side is
 * two ranges because the engines put NULLs at opposite ends of an index.
 */
const NEVER_SEEN = 'tenant_id = $1 AND last_seen_at IS NULL';
const SEEN_BEFORE = 'tenant_id = $1 AND last_seen_at < $2';
const SEEN_SINCE = 'tenant_id = $1 AND last_seen_at >= $2';

/** How many devices pass `where`, counting at most `limit` of them (the last parameter). */
const boundedCount = (where: string, limit: number) =>
  `SELECT COUNT(*) AS devices FROM (SELECT 1 AS one FROM device WHERE ${where} LIMIT $${limit}) AS counted`;

/** Devices that pass `where` per firmware version and device type. */
const perVersion = (where: string) =>
  `SELECT firmware_version, device_type, COUNT(*) AS devices FROM device WHERE ${where} GROUP BY firmware_version, device_type`;

/** A row of a count per version and type as the drivers return it (PostgreSQL's sums and counts arrive as text). */
type VersionCountSql = Record<'firmware_version' | 'device_type', string> & { devices: number | string };

/** A text whose `%`, `_` and backslashes a LIKE pattern with a backslash as its ESCAPE character takes literally. */
const likeLiteral = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The hex digits of a search text with the separators `:` `.` `-` and spaces removed, upper case; `undefined` when it has other characters. */
const searchHex = (text: string): string | undefined => {
  const hex = text.replace(/[:.\-\s]/g, '').toUpperCase();
  return /^[0-9A-F]+$/.test(hex) ? hex : undefined;
};

/**
 * A search text as a query of the trigram index `device_search` (SQLite): the text in the name or
 * in an identifier that is not a mac, or its hex digits in the identifier's (a mac's text, in any
 * case, contains them), each as a phrase (matched wherever it occurs, in any case). `undefined`
 * when there is no text, or it (or its hex digits) has fewer than three characters (code points),
 * which no trigram can find.
 */
function ftsMatch(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const hex = searchHex(text);
  if (!trigramSearchable(text)) return undefined;
  const phrase = (value: string) => `"${value.replace(/"/g, '""')}"`;
  return `{name identifier} : ${phrase(text)}${hex !== undefined ? ` OR hex : ${phrase(hex)}` : ''}`;
}

/**
 * Whether a trigram index can serve a search text: it has three characters (code points) or more,
 * and so do its hex digits when it is only those and separators.
 */
function trigramSearchable(text: string): boolean {
  const hex = searchHex(text);
  return [...text].length >= 3 && (hex === undefined || hex.length >= 3);
}

/** A `device` row as the drivers return it (PostgreSQL's `bigint` arrives as text). */
interface DeviceRow {
  id: number;
  tenant_id: number;
  mac: string;
  name: string;
  firmware_version: string;
  device_key_id: number | null;
  device_type: string;
  last_seen_at: number | string | null;
  created_at: number | string;
  protocol: DeviceProtocol;
  target_token_hash: string | null;
  attributes: string | null;
}

/** Every column of {@link DeviceRow}, from the `device` table aliased `d`, for {@link toDevice}. */
const DEVICE_COLUMNS = `d.id AS id, d.tenant_id AS tenant_id, d.mac AS mac, d.name AS name,
    d.firmware_version AS firmware_version, d.device_key_id AS device_key_id, d.device_type AS device_type,
    d.last_seen_at AS last_seen_at, d.created_at AS created_at, d.protocol AS protocol,
    d.target_token_hash AS target_token_hash, d.attributes AS attributes`;

const FIND_BY_MAC = `SELECT ${DEVICE_COLUMNS} FROM device d WHERE d.tenant_id = $1 AND d.mac = $2`;

const FIND_BY_ID = `SELECT ${DEVICE_COLUMNS} FROM device d WHERE d.id = $1`;

const PAGE_AFTER =
  'SELECT mac, name, firmware_version FROM device WHERE tenant_id = $1 AND protocol = $4 AND mac > $2 ORDER BY mac LIMIT $3';

/** A device as the bulk import inserts it (docs/decisions.md §14): never seen, without a device key. */
export type NewDeviceRow = Pick<Device, 'mac' | 'name' | 'firmwareVersion' | 'deviceType' | 'protocol' | 'targetTokenHash' | 'attributes'>;

/** Rows of one multi-row insert of {@link DeviceRepository.insertMany} on SQLite. */
const INSERT_ROWS = 1000;

/** Database access for devices. */
@Injectable()
export class DeviceRepository {
  private readonly findByMacRead: PreparedRead<DeviceRow>;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.findByMacRead = new PreparedRead(dataSource, FIND_BY_MAC);
  }

  /**
   * The tenant's device with that canonical mac: one indexed lookup, prepared once (the hot path
   * of every device request), or in `manager`'s transaction.
   */
  async findByMac(tenantId: number, mac: string, manager?: EntityManager): Promise<Device | null> {
    const [row] = manager ? await query<DeviceRow[]>(manager, FIND_BY_MAC, [tenantId, mac]) : await this.findByMacRead.all([tenantId, mac]);
    return row ? toDevice(row) : null;
  }

  /** The device with that id, in `manager`'s transaction; `null` when absent. */
  async findById(id: number, manager: EntityManager = this.dataSource.manager): Promise<Device | null> {
    const [row] = await query<DeviceRow[]>(manager, FIND_BY_ID, [id]);
    return row ? toDevice(row) : null;
  }

  /** All devices of a tenant that speak `protocol`, by identifier. */
  list(tenantId: number, protocol: DeviceProtocol): Promise<Device[]> {
    return this.dataSource.getRepository(Device).find({
      select: { mac: true, name: true, firmwareVersion: true },
      where: { tenantId, protocol },
      order: { mac: 'ASC' },
    });
  }

  /**
   * One page of a tenant's devices matching `filter`, by mac, and how many match in all.
   * Filters are SQL with bound parameters. With `after` (a keyset cursor: a device identifier),
   * only devices whose identifier sorts after it: a range scan of the `(tenant_id, mac)` index
   * from the cursor, however deep the page (an offset reads and drops every row before it). A
   * page by offset in the second half of the matches is read from the last one backwards, so the
   * deepest offset is the middle. Offsets move when devices come or go between the count and the
   * page, as they would between two pages.
   *
   * A text search on SQLite reads the trigram index (`device_search`, migration DeviceSearch).
   *
   * On SQLite, which plans without statistics, the page's plan is chosen here from the count: when
   * the matches are few, they are read through the filters' indexes and sorted; when they are
   * many, the `(tenant_id, mac)` index is walked in order until the page is full, each device
   * checked against the filters. Left to itself, the planner read and sorted 400,000 devices
   * seen since a time for a page of 50 (0.33 s at a million), and walked the whole tenant for a
   * search that finds one.
   */
  async page(tenantId: number, filter: DeviceFilter, offset: number, limit: number, after?: string): Promise<[Device[], number]> {
    const sqlite = isSqlite(this.dataSource.options.type);
    const match = sqlite ? ftsMatch(filter.text) : undefined;
    // COUNT(*), not TypeORM's getCount (COUNT(DISTINCT id): one device a row here, and the distinct
    // sorts every match: 156 → 75 ms for half a million on PostgreSQL).
    const total =
      (await this.keptTotal(tenantId, filter)) ??
      Number(
        (await this.filtered(tenantId, filter, match, 'selective').select('COUNT(*)', 'total').getRawOne<{ total: number | string }>())
          ?.total ?? 0,
      );
    // Nothing to read: a filter no device passes would otherwise walk the whole (tenant_id, mac) index for none.
    if (total === 0 || (after === undefined && offset >= total)) return [[], total];
    // A page by offset nearer the end than the start is read from the end and turned: an offset
    // reads and drops every row before it (the last page of a million read them all).
    const end = Math.min(offset + limit, total);
    const fromEnd = after === undefined && total - end < offset;
    const [skip, take] = fromEnd ? [total - end, end - offset] : [offset, limit];
    // The ordered walk reads about (skip + take) × devices / total entries to fill the page;
    // the selective read reads `total`.
    const walk = sqlite && (skip + take) * ((await this.keptTotal(tenantId, {})) ?? total) > total * total ? 'selective' : 'ordered';
    const query = this.filtered(tenantId, filter, match, walk);
    if (after !== undefined) query.andWhere('d.mac > :after', { after });
    const devices = await query
      .orderBy('d.mac', fromEnd ? 'DESC' : 'ASC')
      .offset(skip)
      .limit(take)
      .getMany();
    return [fromEnd ? devices.reverse() : devices, total];
  }

  /**
   * A query of the tenant's devices that pass `filter`, the text as `match` (an FTS5 query of
   * `device_search`) when given. `walk` is the plan on SQLite (unary `+` keeps its planner off an
   * index): `ordered` along the `(tenant_id, mac)` index, the filters checked per device;
   * `selective` through the filters' indexes (the text search's matches by id).
   */
  private filtered(tenantId: number, filter: DeviceFilter, match: string | undefined, walk: 'ordered' | 'selective') {
    const sqlite = isSqlite(this.dataSource.options.type);
    const [tenant, column] = walk === 'ordered' ? (['', sqlite ? '+' : ''] as const) : ([match !== undefined ? '+' : '', ''] as const);
    const query = this.dataSource.getRepository(Device).createQueryBuilder('d').where(`${tenant}d.tenant_id = :tenantId`, { tenantId });
    if (filter.groupId !== undefined) {
      query.andWhere('EXISTS (SELECT 1 FROM group_member m WHERE m.group_id = :groupId AND m.mac = d.mac)', { groupId: filter.groupId });
    }
    if (filter.firmwareVersion !== undefined) {
      query.andWhere(`${column}d.firmware_version = :firmwareVersion`, { firmwareVersion: filter.firmwareVersion });
    }
    if (filter.deviceType !== undefined) query.andWhere(`${column}d.device_type = :deviceType`, { deviceType: filter.deviceType });
    if (filter.seenSince !== undefined) query.andWhere(`${column}d.last_seen_at >= :seenSince`, { seenSince: filter.seenSince });
    if (filter.notSeenSince !== undefined) {
      query.andWhere(`(${column}d.last_seen_at IS NULL OR ${column}d.last_seen_at < :notSeenSince)`, { notSeenSince: filter.notSeenSince });
    }
    if (match !== undefined) {
      query.andWhere('d.id IN (SELECT rowid FROM device_search WHERE device_search MATCH :match)', { match });
    } else if (filter.text !== undefined) {
      const name = `%${likeLiteral(filter.text.toLowerCase())}%`;
      const hex = searchHex(filter.text);
      // The expressions of PostgreSQL's trigram index (migration DeviceSearch), which serves a text
      // of three characters or more whose hex digits, if it is only those, are three or more. A mac
      // is then found by its hex digits alone (its text, in any case, contains them); shorter texts
      // read every device and look at the mac's text too.
      const indexed = !isSqlite(this.dataSource.options.type) && trigramSearchable(filter.text);
      const identifier = indexed ? `(CASE WHEN d.mac ~ '[^0-9A-F:]' THEN LOWER(d.mac) END)` : 'LOWER(d.mac)';
      const byText = `LOWER(d.name) LIKE :name ESCAPE '\\' OR ${identifier} LIKE :name ESCAPE '\\'`;
      if (hex !== undefined) {
        query.andWhere(`(${byText} OR REPLACE(d.mac, ':', '') LIKE :hex)`, { name, hex: `%${hex}%` });
      } else {
        query.andWhere(`(${byText})`, { name });
      }
    }
    return query;
  }

  /**
   * How many of the tenant's devices pass `filter`, from the kept counts when it filters by
   * nothing but version and type (`device_count`) or by a group and type (the group's registered
   * members, `group_member_count`): a few rows where counting the devices read a million on every
   * page. `not_seen_since` alone counts its two index ranges apart (never seen, seen before it):
   * SQLite, planning without statistics, read every device of the tenant for the two together.
   * `undefined` for any other filter, which the caller counts.
   */
  private async keptTotal(tenantId: number, filter: DeviceFilter): Promise<number | undefined> {
    const { notSeenSince, ...others } = filter;
    if (notSeenSince !== undefined && Object.values(others).every((value) => value === undefined)) {
      const count = (where: string, parameters: unknown[]) =>
        this.countOf(`SELECT COUNT(*) AS devices FROM device WHERE ${where}`, parameters);
      return (await count(NEVER_SEEN, [tenantId])) + (await count(SEEN_BEFORE, [tenantId, notSeenSince]));
    }
    if (filter.seenSince !== undefined || notSeenSince !== undefined || filter.text !== undefined) return undefined;
    const where: string[] = [];
    const parameters: unknown[] = [];
    const add = (column: string, value: unknown) => where.push(`${column} = $${parameters.push(value)}`);
    let table: string;
    if (filter.groupId === undefined) {
      table = 'SELECT SUM(devices) AS devices FROM device_count';
      add('tenant_id', tenantId);
      if (filter.firmwareVersion !== undefined) add('firmware_version', filter.firmwareVersion);
    } else {
      if (filter.firmwareVersion !== undefined) return undefined;
      table = 'SELECT SUM(members) AS devices FROM group_member_count';
      add('group_id', filter.groupId);
      add('registered', 1);
    }
    if (filter.deviceType !== undefined) add('device_type', filter.deviceType);
    const [row] = await query<{ devices: number | string | null }[]>(
      this.dataSource.manager,
      `${table} WHERE ${where.join(' AND ')}`,
      parameters,
    );
    return Number(row?.devices ?? 0);
  }

  /** The number a counting statement (`SELECT COUNT(*) AS devices …`) answers. */
  private async countOf(text: string, parameters: unknown[]): Promise<number> {
    return Number((await query<{ devices: number | string }[]>(this.dataSource.manager, text, parameters))[0].devices);
  }

  /**
   * The tenant's devices per firmware version and device type (kept counts), and how many were
   * seen since `hourAgo` and `dayAgo` (epoch ms), in all and per version and type.
   *
   * Each "seen since" figure is read from whichever side of its time is smaller, the other from
   * the kept total: the devices not seen since (never seen, or before it) are counted up to half
   * the fleet, and only when they are more, the devices seen since. An active fleet (every device
   * polls within the hour) and a fleet never seen yet (just imported) each read a few index
   * entries; at worst half the fleet's entries are read twice, where one count of every device took
   * 0.8 s at a million. Separate statements: a device registered or seen meanwhile may count in
   * one and not another (figures are clamped to their devices).
   */
  async fleetCounts(tenantId: number, hourAgo: number, dayAgo: number): Promise<FleetCounts> {
    const manager = this.dataSource.manager;
    const kept = await query<VersionCountSql[]>(manager, KEPT_VERSION_COUNTS, [tenantId]);
    const total = kept.reduce((sum, row) => sum + Number(row.devices), 0);
    const half = Math.floor(total / 2) + 1;
    const count = (text: string, parameters: unknown[]) => this.countOf(text, parameters);
    /** Devices not seen since `since`, when fewer than half the fleet; `undefined` when more. */
    const notSeenSince = async (since: number): Promise<number | undefined> => {
      const never = await count(boundedCount(NEVER_SEEN, 2), [tenantId, half]);
      if (never >= half) return undefined;
      const before = await count(boundedCount(SEEN_BEFORE, 3), [tenantId, since, half - never]);
      return never + before >= half ? undefined : never + before;
    };
    const seenSince = async (since: number) => {
      const notSeen = await notSeenSince(since);
      const seen =
        notSeen !== undefined
          ? total - notSeen
          : await count(`SELECT COUNT(*) AS devices FROM device WHERE ${SEEN_SINCE}`, [tenantId, since]);
      return { seen: Math.max(0, Math.min(total, seen)), fewNotSeen: notSeen !== undefined };
    };
    const hour = await seenSince(hourAgo);
    const day = await seenSince(dayAgo);
    const byVersion = async (where: string, parameters: unknown[]) =>
      (await query<VersionCountSql[]>(manager, perVersion(where), parameters)).map(
        (row) => [versionKey(row), Number(row.devices)] as const,
      );
    const counted = new Map<string, number>();
    const sides = day.fewNotSeen
      ? [...(await byVersion(NEVER_SEEN, [tenantId])), ...(await byVersion(SEEN_BEFORE, [tenantId, dayAgo]))]
      : await byVersion(SEEN_SINCE, [tenantId, dayAgo]);
    for (const [key, devices] of sides) counted.set(key, (counted.get(key) ?? 0) + devices);
    const versions = kept.map((row) => {
      const devices = Number(row.devices);
      const side = counted.get(versionKey(row)) ?? 0;
      const seenDay = day.fewNotSeen ? devices - side : side;
      return {
        firmwareVersion: row.firmware_version,
        deviceType: row.device_type,
        devices,
        seenSinceDay: Math.max(0, Math.min(devices, seenDay)),
      };
    });
    return { versions, seenSinceHour: hour.seen, seenSinceDay: day.seen };
  }

  /**
   * Up to `limit` devices of a tenant that speak `protocol` whose identifier sorts after
   * `afterMac`, by identifier: one range scan of the `(tenant_id, mac)` index per page, so a
   * report never holds more than a page.
   */
  async pageAfter(
    tenantId: number,
    afterMac: string,
    limit: number,
    protocol: DeviceProtocol,
  ): Promise<Pick<Device, 'mac' | 'name' | 'firmwareVersion'>[]> {
    const rows = await query<{ mac: string; name: string; firmware_version: string }[]>(this.dataSource.manager, PAGE_AFTER, [
      tenantId,
      afterMac,
      limit,
      protocol,
    ]);
    return rows.map((row) => ({ mac: row.mac, name: row.name, firmwareVersion: row.firmware_version }));
  }

  /** Inserts a device; a duplicate `(tenant, mac)` fails with a unique violation. */
  insert(manager: EntityManager, device: Omit<Device, 'id'>): Promise<Device> {
    return manager.save(Device, manager.create(Device, device));
  }

  /**
   * Inserts devices of one tenant, all created at `createdAt` (epoch ms), in `manager`'s
   * transaction, a batch at a time: on SQLite multi-row `VALUES` statements of at most
   * {@link INSERT_ROWS} rows (9 variables each, far below its 32,766); on PostgreSQL
   * one statement a call over `unnest` of one array per column (no parameter limit, one plan). A
   * device whose `(tenant, mac)` exists, or came earlier in `devices`, is left as it is (`ON
   * CONFLICT DO NOTHING`).
   * @returns the identifiers inserted (in no particular order).
   */
  async insertMany(manager: EntityManager, tenantId: number, createdAt: number, devices: readonly NewDeviceRow[]): Promise<string[]> {
    const columns = 'tenant_id, mac, name, firmware_version, device_type, created_at, protocol, target_token_hash, attributes';
    if (!isSqlite(manager.connection.options.type)) {
      const rows = await query<{ mac: string }[]>(
        manager,
        `INSERT INTO device (${columns})
           SELECT $1::integer, u.mac, u.name, u.firmware_version, u.device_type, $2::bigint, u.protocol, u.target_token_hash, u.attributes
           FROM unnest($3::varchar[], $4::varchar[], $5::varchar[], $6::varchar[], $7::varchar[], $8::varchar[], $9::text[])
             AS u (mac, name, firmware_version, device_type, protocol, target_token_hash, attributes)
           WHERE true
         ON CONFLICT (tenant_id, mac) DO NOTHING RETURNING mac`,
        [
          tenantId,
          createdAt,
          devices.map((d) => d.mac),
          devices.map((d) => d.name),
          devices.map((d) => d.firmwareVersion),
          devices.map((d) => d.deviceType),
          devices.map((d) => d.protocol),
          devices.map((d) => d.targetTokenHash),
          devices.map((d) => d.attributes),
        ],
      );
      return rows.map((row) => row.mac);
    }
    const inserted: string[] = [];
    for (let start = 0; start < devices.length; start += INSERT_ROWS) {
      const values: unknown[] = [tenantId, createdAt];
      const tuples = devices.slice(start, start + INSERT_ROWS).map((d) => {
        const n = values.push(d.mac, d.name, d.firmwareVersion, d.deviceType, d.protocol, d.targetTokenHash, d.attributes);
        return `($1, $${n - 6}, $${n - 5}, $${n - 4}, $${n - 3}, $2, $${n - 2}, $${n - 1}, $${n})`;
      });
      const rows = await query<{ mac: string }[]>(
        manager,
        `INSERT INTO device (${columns}) VALUES ${tuples.join(', ')} ON CONFLICT (tenant_id, mac) DO NOTHING RETURNING mac`,
        values,
      );
      for (const row of rows) inserted.push(row.mac);
    }
    return inserted;
  }

  async delete(manager: EntityManager, id: number): Promise<void> {
    await manager.delete(Device, { id });
  }

  async setFirmwareVersion(manager: EntityManager, id: number, firmwareVersion: string, lastSeenAt: number): Promise<void> {
    await manager.update(Device, { id }, { firmwareVersion, lastSeenAt });
  }

  /** Replaces the hash of a device's target token (`null`: it has none). */
  async setTargetTokenHash(manager: EntityManager, id: number, targetTokenHash: string | null): Promise<void> {
    await manager.update(Device, { id }, { targetTokenHash });
  }

  /** Replaces a device's attributes (JSON text). */
  async setAttributes(manager: EntityManager, id: number, attributes: string): Promise<void> {
    await manager.update(Device, { id }, { attributes });
  }
}

/** The key of a version and type row. */
function versionKey(row: VersionCountSql): string {
  return JSON.stringify([row.firmware_version, row.device_type]);
}

/** A {@link Device} from its row as a driver returns it. */
function toDevice(row: DeviceRow): Device {
  return {
    id: Number(row.id),
    tenantId: Number(row.tenant_id),
    mac: row.mac,
    name: row.name,
    firmwareVersion: row.firmware_version,
    deviceKeyId: row.device_key_id === null ? null : Number(row.device_key_id),
    deviceType: row.device_type,
    lastSeenAt: row.last_seen_at === null ? null : Number(row.last_seen_at),
    createdAt: Number(row.created_at),
    protocol: row.protocol,
    targetTokenHash: row.target_token_hash,
    attributes: row.attributes,
  };
}
