import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { PreparedRead } from '#src/platform/database/prepared-read.js';
import { query } from '#src/platform/database/sql.js';
import type { AdmissibleKey } from '#src/domain/tenant/device-key-admission.js';
import type { DeviceVersion } from '#src/domain/device/device.entity.js';
import { Firmware } from '#src/domain/firmware/firmware.entity.js';
import { DeviceGroup } from '#src/domain/group/device-group.entity.js';
import type { RolloutCandidate } from './policy/next-rollout.js';
import { Rollout, RolloutSuccess, type DdiActionType, type RolloutStatus } from './rollout.entity.js';
import type { ActionRollout } from './policy/device-actions.js';
import type { DeviceState } from './policy/device-states.js';
import type { OfferWhen } from './policy/decision.js';
import { targetCondition } from './policy/targets.js';
import { storedWindowsOf } from './policy/windows.js';
import { storedRampOf } from './policy/ramp.js';
import type { InstalledRollout } from './device-state.repository.js';
import { isStoredId } from '#src/platform/common/input-rules.js';

/** A rollout that targets a device, with the device's success report for it. */
export interface DeviceRolloutRow {
  id: number;
  name: string;
  status: RolloutStatus;
  groupId: number;
  groupName: string;
  firmwareId: number;
  /** Target firmware version. */
  version: string;
  /** When the device reported success, epoch milliseconds; `null` when it has not. */
  reportedAt: number | null;
  /** The version it reported. */
  reportedVersion: string | null;
  /** Its state in the rollout (docs/decisions.md §10), `null` when it has none yet. */
  state: DeviceState | null;
  /** Its wave, `null` when it has no state yet. */
  wave: number | null;
}

/**
 * The database filters of docs/decisions.md §8 for a device `d` and an active rollout `r` at time
 * `now` (a placeholder): started, the device is a target (policy/targets.ts), no success record of
 * the device (also one written without a state, e.g. before device states).
 */
function offerableWhenActive(now: string): string {
  return `(r.start_date <= ${now}
      AND ${targetCondition('d', 'r')}
      AND NOT EXISTS (SELECT 1 FROM rollout_success u WHERE u.rollout_id = r.id AND u.device_id = d.id))`;
}

/** The rollout columns of {@link NEXT_ROLLOUT_VIEW} and {@link ACTION_VIEW}, after the device's. */
const ROLLOUT_COLUMNS = `r.id AS r_id, r.name AS r_name, r.priority AS r_priority, r.start_date AS r_start_date, r.downgrade AS r_downgrade,
    f.id AS r_firmware_id, f.version AS r_version, r.waves AS r_waves, r.current_wave AS r_current_wave,
    s.state AS s_state, s.wave AS s_wave`;

const NEXT_ROLLOUT_COLUMNS = `k.tenant_id AS key_tenant_id, k.revoked_at AS key_revoked_at, d.id AS device_id, d.firmware_version AS device_version,
    ${ROLLOUT_COLUMNS}, r.windows AS r_windows, r.ramp AS r_ramp, r.offer_when AS r_offer_when`;

/**
 * Everything a next-rollout request reads, in one statement (the hot path of devices): the
 * token's device key if it is of the token's tenant ($1 key id, $2 tenant id), the id and version
 * of the tenant's device with mac $3 (NULL when absent) and, one row each, (a) the rollouts that
 * pass the database filters of docs/decisions.md §8 at time $4: active, started, the device is a
 * target (policy/targets.ts), no success record of the device (also one written without a
 * state, e.g. before device states); and (b) the rollouts the device reported success for and has
 * not confirmed (state `installed`, whatever the rollout's status: the version it reports now
 * confirms the update or shows it fell back). Each with the device's state and wave in it (NULL
 * when it has none) and the rollout's waves; NULL columns when there is none. Whether a rollout
 * may be offered (its state, wave and version) is decided by `decide` (policy/decision.ts). No row: the
 * key is gone. One statement instead of three: one round trip on
 * PostgreSQL, one batched call on SQLite. Columns in the order of {@link NextRolloutViewRow}.
 *
 * (a) comes from the active rollouts, by the (tenant, status) index; (b) only through the device's
 * own `installed` states, by the (device, state) index, leaving out those (a) has: the tenant's
 * finished rollouts, which only grow, cost nothing (300 of them made a call three times as slow,
 * 197 µs against 60 on SQLite, when every rollout of the tenant was looked at), and no active
 * rollout is probed for a state the device almost never has there (11 of 58 µs on SQLite when (a)
 * also asked each active rollout for it).
 */
const NEXT_ROLLOUT_VIEW = `SELECT ${NEXT_ROLLOUT_COLUMNS}
  FROM device_key k
  LEFT JOIN device d ON d.tenant_id = $2 AND d.mac = $3
  LEFT JOIN rollout r ON r.tenant_id = d.tenant_id AND r.status = 'active' AND ${offerableWhenActive('$4')}
  LEFT JOIN rollout_device_state s ON s.rollout_id = r.id AND s.device_id = d.id
  LEFT JOIN firmware f ON f.id = r.firmware_id
  WHERE k.id = $1
  UNION ALL
  SELECT ${NEXT_ROLLOUT_COLUMNS}
  FROM device_key k
  JOIN device d ON d.tenant_id = $2 AND d.mac = $3
  JOIN rollout_device_state s ON s.device_id = d.id AND s.state = 'installed'
  JOIN rollout r ON r.id = s.rollout_id AND r.tenant_id = d.tenant_id
  LEFT JOIN firmware f ON f.id = r.firmware_id
  WHERE k.id = $1 AND NOT (r.status = 'active' AND ${offerableWhenActive('$4')})`;

const ACTION_COLUMNS = `d.id AS device_id, d.firmware_version AS device_version,
    ${ROLLOUT_COLUMNS}, r.status AS r_status, r.ddi_action_type AS r_ddi_action_type, r.windows AS r_windows, r.ramp AS r_ramp,
    r.offer_when AS r_offer_when`;

/**
 * What a device that reports per action (hawkBit DDI) is asked when it polls, in one statement:
 * the id and version of the tenant's ($1) device with identifier $2 and, one row each, the
 * rollouts that pass the database filters of docs/decisions.md §8 at time $3 (as
 * {@link NEXT_ROLLOUT_VIEW}), those the device is `installed` in (kept offered until it closes
 * the action), and paused or cancelled ones it is `offered` or `downloading` in (to cancel), each
 * with the device's state and wave and the rollout's status and DDI action type
 * (policy/device-actions.ts decides). No row: no such device. Columns in the order of
 * {@link ActionViewRow}. All but the first kind come through the device's own states, as in
 * {@link NEXT_ROLLOUT_VIEW}.
 */
const ACTION_VIEW = `SELECT ${ACTION_COLUMNS}
  FROM device d
  LEFT JOIN rollout r ON r.tenant_id = d.tenant_id AND r.status = 'active' AND ${offerableWhenActive('$3')}
  LEFT JOIN rollout_device_state s ON s.rollout_id = r.id AND s.device_id = d.id
  LEFT JOIN firmware f ON f.id = r.firmware_id
  WHERE d.tenant_id = $1 AND d.mac = $2
  UNION ALL
  SELECT ${ACTION_COLUMNS}
  FROM device d
  JOIN rollout_device_state s ON s.device_id = d.id AND s.state IN ('installed', 'offered', 'downloading')
  JOIN rollout r ON r.id = s.rollout_id AND r.tenant_id = d.tenant_id
    AND (s.state = 'installed' OR r.status IN ('paused', 'cancelled'))
  LEFT JOIN firmware f ON f.id = r.firmware_id
  WHERE d.tenant_id = $1 AND d.mac = $2 AND NOT (r.status = 'active' AND ${offerableWhenActive('$3')})`;

/** The rollout a device ($1) of a tenant ($2) was last confirmed in: every DDI poll reads it. */
const LAST_CONFIRMED = `SELECT s.rollout_id AS id FROM rollout_device_state s JOIN rollout r ON r.id = s.rollout_id
  WHERE s.device_id = $1 AND r.tenant_id = $2 AND s.state = 'confirmed' ORDER BY s.confirmed_at DESC, s.rollout_id DESC LIMIT 1`;

/** A row of {@link ACTION_VIEW} as an array: the device, then one rollout (or NULLs) as in {@link NextRolloutViewRow}, its status and DDI action type. */
type ActionViewRow = [
  deviceId: number | string,
  deviceVersion: string,
  id: number | string | null,
  name: string | null,
  priority: number | string | null,
  startDate: number | string | null,
  downgrade: boolean | number | null,
  firmwareId: number | string | null,
  version: string | null,
  waves: string | null,
  currentWave: number | string | null,
  state: DeviceState | null,
  wave: number | string | null,
  status: RolloutStatus | null,
  ddiActionType: DdiActionType | null,
  windows: string | null,
  ramp: string | null,
  offerWhen: OfferWhen | null,
];

/**
 * A row of {@link NEXT_ROLLOUT_VIEW} as an array (rows as arrays cost less to build): the key's
 * tenant and revocation time, the device (or NULLs), one rollout (or NULLs) with the device's state
 * in it, as the drivers return them (PostgreSQL: `bigint` as text, `boolean` as boolean).
 */
type NextRolloutViewRow = [
  keyTenantId: number | string,
  keyRevokedAt: number | string | null,
  deviceId: number | null,
  deviceVersion: string | null,
  id: number | string | null,
  name: string | null,
  priority: number | string | null,
  startDate: number | string | null,
  downgrade: boolean | number | null,
  firmwareId: number | string | null,
  version: string | null,
  waves: string | null,
  currentWave: number | string | null,
  state: DeviceState | null,
  wave: number | string | null,
  windows: string | null,
  ramp: string | null,
  offerWhen: OfferWhen | null,
];

const waveCounts = new Map<string, number>();

/** How many waves a rollout's `waves` text lists (remembered per text: a few distinct texts are read on every request). */
function waveCount(waves: string): number {
  let count = waveCounts.get(waves);
  if (count === undefined) {
    const parsed = JSON.parse(waves) as unknown;
    count = Array.isArray(parsed) && parsed.length > 0 ? parsed.length : 1;
    if (waveCounts.size < 1000) waveCounts.set(waves, count);
  }
  return count;
}

/** What a next-rollout request needs to know, read at once (see {@link RolloutRepository.nextRolloutView}). */
export interface NextRolloutView {
  /** The token's device key, for the admission rule (`admitDeviceKey`). */
  key: AdmissibleKey;
  /** Id and firmware version of the tenant's device with the mac, or `null`. */
  device: DeviceVersion | null;
  /** Rollouts passing the database filters of docs/decisions.md §8 for the device (none without a device). */
  candidates: RolloutCandidate[];
  /** Rollouts the device reported success for and has not confirmed yet (state `installed`). */
  installed: InstalledRollout[];
}

/** What a device that reports per action asks when it polls (see {@link RolloutRepository.actionView}). */
export interface ActionView {
  /** Id and firmware version of the device. */
  device: DeviceVersion;
  /** The rollouts of {@link ACTION_VIEW}, with the device's state in each. */
  rollouts: ActionRollout[];
  /** DDI action type of each of those rollouts, by id. */
  ddiActionTypes: ReadonlyMap<number, DdiActionType>;
}

/** Database access for rollouts and success records (groups: {@link GroupRepository}). */
@Injectable()
export class RolloutRepository {
  private readonly nextRolloutRead: PreparedRead<NextRolloutViewRow>;
  private readonly actionRead: PreparedRead<ActionViewRow>;
  private readonly lastConfirmedRead: PreparedRead<{ id: number | string }>;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.nextRolloutRead = new PreparedRead(dataSource, NEXT_ROLLOUT_VIEW, { batched: true, rowMode: 'array' });
    this.actionRead = new PreparedRead(dataSource, ACTION_VIEW, { batched: true, rowMode: 'array' });
    this.lastConfirmedRead = new PreparedRead(dataSource, LAST_CONFIRMED);
  }

  /**
   * The tenant's device with identifier `mac` and the rollouts that concern it at `nowMs` (epoch
   * ms) as a device that reports per action sees them ({@link ACTION_VIEW}); `null` when the
   * tenant has no such device.
   */
  async actionView(tenantId: number, mac: string, nowMs: number): Promise<ActionView | null> {
    const rows = await this.actionRead.all([tenantId, mac, nowMs]);
    if (rows.length === 0) return null;
    const [[deviceId, deviceVersion]] = rows;
    const rollouts: ActionRollout[] = [];
    const ddiActionTypes = new Map<number, DdiActionType>();
    for (const row of rows) {
      const [, , id, name, priority, startDate, downgrade, firmwareId, version, waves, currentWave, state, wave, status, type] = row;
      const [windows, ramp, offerWhen] = [row[15], row[16], row[17]];
      if (id === null) continue;
      rollouts.push({
        id: Number(id),
        name: name!,
        priority: Number(priority),
        startDate: Number(startDate),
        downgrade: downgrade === true || downgrade === 1,
        firmwareId: Number(firmwareId),
        version: version!,
        state,
        wave: wave === null ? null : Number(wave),
        currentWave: Number(currentWave),
        waveCount: waveCount(waves!),
        windows: storedWindowsOf(windows),
        ramp: storedRampOf(ramp),
        offerWhen: offerWhen!,
        status: status!,
      });
      ddiActionTypes.set(Number(id), type!);
    }
    return { device: { id: Number(deviceId), firmwareVersion: deviceVersion }, rollouts, ddiActionTypes };
  }

  /**
   * The rollout of the tenant's device `deviceId` it most recently confirmed (its latest closed
   * action: DDI `installedBase`), or `null`.
   */
  async lastConfirmed(tenantId: number, deviceId: number): Promise<number | null> {
    const rows = await this.lastConfirmedRead.all([deviceId, tenantId]);
    return rows.length === 0 ? null : Number(rows[0].id);
  }

  /**
   * The device key `keyId` of tenant `tenantId`, id and version of the tenant's device with
   * `mac` and that device's candidate rollouts at `nowMs` (epoch ms), in one prepared statement
   * ({@link NEXT_ROLLOUT_VIEW}); `null` when the key does not exist. The caller applies
   * `admitDeviceKey` to the key (revoked, other tenant).
   */
  async nextRolloutView(keyId: number, tenantId: number, mac: string, nowMs: number): Promise<NextRolloutView | null> {
    const rows = await this.nextRolloutRead.all([keyId, tenantId, mac, nowMs]);
    if (rows.length === 0) return null;
    const [[keyTenantId, keyRevokedAt, deviceId, deviceVersion]] = rows;
    const device = deviceId === null ? null : { id: Number(deviceId), firmwareVersion: deviceVersion! };
    const candidates: RolloutCandidate[] = [];
    const installed: InstalledRollout[] = [];
    for (const [
      ,
      ,
      ,
      ,
      id,
      name,
      priority,
      startDate,
      downgrade,
      firmwareId,
      version,
      waves,
      currentWave,
      state,
      wave,
      windows,
      ramp,
      offerWhen,
    ] of rows) {
      if (id === null) continue;
      if (state === 'installed') {
        installed.push({ rolloutId: Number(id), version: version! });
        continue;
      }
      candidates.push({
        id: Number(id),
        name: name!,
        priority: Number(priority),
        startDate: Number(startDate),
        downgrade: downgrade === true || downgrade === 1,
        firmwareId: Number(firmwareId),
        version: version!,
        state,
        wave: wave === null ? null : Number(wave),
        currentWave: Number(currentWave),
        waveCount: waveCount(waves!),
        windows: storedWindowsOf(windows),
        ramp: storedRampOf(ramp),
        offerWhen: offerWhen!,
      });
    }
    const key = { tenantId: Number(keyTenantId), revokedAt: keyRevokedAt === null ? null : Number(keyRevokedAt) };
    return { key, device, candidates, installed };
  }

  /**
   * What a ramp's increments count (policy/ramp.ts): the new offers the rollout made so far (the
   * sum of its `rollout_ramp_minute` rows) and its devices `confirmed` (its wave counts).
   */
  async rampCounts(rolloutId: number): Promise<{ offered: number; confirmed: number }> {
    const rows = await query<{ offered: unknown; confirmed: unknown }[]>(
      this.dataSource.manager,
      `SELECT (SELECT COALESCE(SUM(used), 0) FROM rollout_ramp_minute WHERE rollout_id = $1) AS offered,
        (SELECT COALESCE(SUM(devices), 0) FROM rollout_wave_count WHERE rollout_id = $1 AND state = 'confirmed') AS confirmed`,
      [rolloutId],
    );
    return { offered: Number(rows[0]?.offered ?? 0), confirmed: Number(rows[0]?.confirmed ?? 0) };
  }

  /**
   * The ramp counts of every active or paused rollout with a ramp, in one query (for the metrics,
   * docs/decisions.md §10.1): devices offered it (new offers so far), confirmed on it, and new
   * offers taken in epoch minute `minute`.
   */
  async rampCountsOfRunning(minute: number): Promise<Map<number, { offered: number; confirmed: number; thisMinute: number }>> {
    const rows = await query<{ id: unknown; offered: unknown; confirmed: unknown; this_minute: unknown }[]>(
      this.dataSource.manager,
      `SELECT r.id,
        (SELECT COALESCE(SUM(m.used), 0) FROM rollout_ramp_minute m WHERE m.rollout_id = r.id) AS offered,
        (SELECT COALESCE(SUM(w.devices), 0) FROM rollout_wave_count w WHERE w.rollout_id = r.id AND w.state = 'confirmed') AS confirmed,
        (SELECT COALESCE(SUM(m.used), 0) FROM rollout_ramp_minute m WHERE m.rollout_id = r.id AND m.minute = $1) AS this_minute
        FROM rollout r WHERE r.ramp IS NOT NULL AND r.status IN ('active', 'paused')`,
      [minute],
    );
    return new Map(
      rows.map((row) => [
        Number(row.id),
        { offered: Number(row.offered), confirmed: Number(row.confirmed), thisMinute: Number(row.this_minute) },
      ]),
    );
  }

  /**
   * Takes one new offer of rollout `rolloutId` in epoch minute `minute` while fewer than
   * `allowance` were taken in it: one atomic conditional upsert, so concurrent requests (also on
   * other instances) never take more than the allowance between them.
   * @returns whether one was taken.
   */
  async takeOffer(rolloutId: number, minute: number, allowance: number): Promise<boolean> {
    if (allowance < 1) return false;
    const rows = await query<unknown>(
      this.dataSource.manager,
      `INSERT INTO rollout_ramp_minute (rollout_id, minute, used) VALUES ($1, $2, 1)
        ON CONFLICT (rollout_id, minute) DO UPDATE SET used = rollout_ramp_minute.used + 1 WHERE rollout_ramp_minute.used < $3
        RETURNING used`,
      [rolloutId, minute, allowance],
    );
    return Array.isArray(rows) && rows.length > 0;
  }

  /**
   * The tenant's active and paused rollouts that name a group the device `mac` is a member of, by id,
   * each with its firmware's version and device type and the device's (`deviceId`) state and wave
   * there (`null` when it has none): what the decisions of a device are read from.
   */
  async runningNaming(
    tenantId: number,
    deviceId: number,
    mac: string,
  ): Promise<{ rollout: Rollout; version: string; deviceType: string; state: DeviceState | null; wave: number | null }[]> {
    const rows = await query<{ id: unknown; version: string; device_type: string; state: DeviceState | null; wave: unknown }[]>(
      this.dataSource.manager,
      `SELECT r.id AS id, f.version AS version, f.device_type AS device_type, s.state AS state, s.wave AS wave
         FROM rollout r
         JOIN firmware f ON f.id = r.firmware_id
         LEFT JOIN rollout_device_state s ON s.rollout_id = r.id AND s.device_id = $2
        WHERE r.tenant_id = $1 AND r.status IN ('active', 'paused')
          AND EXISTS (SELECT 1 FROM group_member m WHERE m.group_id = r.group_id AND m.mac = $3)
        ORDER BY r.id`,
      [tenantId, deviceId, mac],
    );
    if (rows.length === 0) return [];
    const rollouts = await this.dataSource.getRepository(Rollout).findBy({ id: In(rows.map((row) => Number(row.id))) });
    return rows.map((row) => ({
      rollout: rollouts.find((r) => r.id === Number(row.id))!,
      version: row.version,
      deviceType: row.device_type,
      state: row.state,
      wave: row.wave === null ? null : Number(row.wave),
    }));
  }

  /** The tenant's rollout with this id; `null` also for an id outside the column's range ({@link isStoredId}). */
  findRollout(tenantId: number, id: number, manager: EntityManager = this.dataSource.manager): Promise<Rollout | null> {
    if (!isStoredId(id)) return Promise.resolve(null);
    return manager.findOneBy(Rollout, { tenantId, id });
  }

  /** Rows `offset`..`offset + limit` of the tenant's rollouts by id (of one status, if given), and their total. */
  pageRollouts(tenantId: number, status: RolloutStatus | undefined, offset: number, limit: number): Promise<[Rollout[], number]> {
    return this.dataSource
      .getRepository(Rollout)
      .findAndCount({ where: status ? { tenantId, status } : { tenantId }, order: { id: 'ASC' }, skip: offset, take: limit });
  }

  /** The tenant's rollouts (only those in `statuses`, if given), oldest first. */
  listRollouts(tenantId: number, statuses?: readonly RolloutStatus[]): Promise<Rollout[]> {
    const where = statuses === undefined ? { tenantId } : { tenantId, status: In([...statuses]) };
    return this.dataSource.getRepository(Rollout).find({ where, order: { id: 'ASC' } });
  }

  insertRollout(manager: EntityManager, rollout: Omit<Rollout, 'id'>): Promise<Rollout> {
    return manager.save(Rollout, manager.create(Rollout, rollout));
  }

  /** Changes columns of a rollout. */
  async update(manager: EntityManager, id: number, changes: Partial<Omit<Rollout, 'id'>>): Promise<void> {
    await manager.update(Rollout, { id }, changes);
  }

  /**
   * Changes columns of a rollout only while it still matches `where` (a value, or a list of
   * allowed values, per column): a guarded update that concurrent writers (also on other
   * instances) cannot both pass.
   * @returns whether the rollout changed.
   */
  async guardedUpdate(
    manager: EntityManager,
    id: number,
    where: Partial<Record<keyof Rollout, unknown>>,
    changes: Partial<Omit<Rollout, 'id'>>,
  ): Promise<boolean> {
    const conditions: Record<string, unknown> = { id };
    for (const [column, value] of Object.entries(where)) conditions[column] = Array.isArray(value) ? In(value) : value;
    const result = await manager.update(Rollout, conditions, changes);
    return (result.affected ?? 0) > 0;
  }

  /** Whether device `deviceId` is a target of rollout `rolloutId` now (policy/targets.ts). */
  async targets(rolloutId: number, deviceId: number): Promise<boolean> {
    const rows = await query<unknown[]>(
      this.dataSource.manager,
      `SELECT 1 FROM rollout r JOIN device d ON d.id = $2 WHERE r.id = $1 AND ${targetCondition('d', 'r')}`,
      [rolloutId, deviceId],
    );
    return rows.length > 0;
  }

  /** The version of a firmware (a rollout's target version). */
  async targetVersion(firmwareId: number): Promise<string> {
    const firmware = await this.dataSource.getRepository(Firmware).findOneByOrFail({ id: firmwareId });
    return firmware.version;
  }

  /** The active and paused rollouts to group `groupId`. */
  runningOfGroup(groupId: number): Promise<Rollout[]> {
    return this.dataSource.getRepository(Rollout).findBy({ groupId, status: In(['active', 'paused']) });
  }

  /** A rollout by id, whatever its tenant. */
  findById(manager: EntityManager, id: number): Promise<Rollout | null> {
    return manager.findOneBy(Rollout, { id });
  }

  /** Inserts a success record; a second one for the same (rollout, device) is a unique violation. */
  async insertSuccess(manager: EntityManager, success: Omit<RolloutSuccess, 'id'>): Promise<void> {
    await manager.insert(RolloutSuccess, success);
  }

  /**
   * Rollouts of the tenant that target a device, by id: those whose group it is a member of now,
   * and those it reported success for (also after leaving the group), each with its success
   * record if any.
   */
  async deviceHistory(tenantId: number, device: { id: number; mac: string }): Promise<DeviceRolloutRow[]> {
    const rows = await this.dataSource
      .getRepository(Rollout)
      .createQueryBuilder('r')
      .innerJoin(DeviceGroup, 'g', 'g.id = r.group_id')
      .innerJoin(Firmware, 'f', 'f.id = r.firmware_id')
      .leftJoin(RolloutSuccess, 's', 's.rollout_id = r.id AND s.device_id = :deviceId', { deviceId: device.id })
      .leftJoin('rollout_device_state', 'ds', 'ds.rollout_id = r.id AND ds.device_id = :deviceId', { deviceId: device.id })
      .select(['r.id AS id', 'r.name AS name', 'r.status AS status', 'g.id AS "groupId"', 'g.name AS "groupName"'])
      .addSelect([
        'f.id AS "firmwareId"',
        'f.version AS version',
        's.created_at AS "reportedAt"',
        's.firmware_version AS "reportedVersion"',
        'ds.state AS state',
        'ds.wave AS wave',
      ])
      .where('r.tenant_id = :tenantId', { tenantId })
      .andWhere(
        '(s.id IS NOT NULL OR ds.device_id IS NOT NULL OR EXISTS (SELECT 1 FROM group_member m WHERE m.group_id = r.group_id AND m.mac = :mac))',
        {
          mac: device.mac,
        },
      )
      .orderBy('r.id', 'ASC')
      .getRawMany<Record<keyof DeviceRolloutRow, string | number | null>>();
    return rows.map((row) => ({
      id: Number(row.id),
      name: String(row.name),
      status: row.status as RolloutStatus,
      groupId: Number(row.groupId),
      groupName: String(row.groupName),
      firmwareId: Number(row.firmwareId),
      version: String(row.version),
      reportedAt: row.reportedAt == null ? null : Number(row.reportedAt),
      reportedVersion: row.reportedVersion == null ? null : String(row.reportedVersion),
      state: row.state == null ? null : (String(row.state) as DeviceState),
      wave: row.wave == null ? null : Number(row.wave),
    }));
  }
}
