import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { isSqlite, query } from '#src/platform/database/sql.js';
import { Device } from '#src/domain/device/device.entity.js';
import { Firmware } from '#src/domain/firmware/firmware.entity.js';
import { DeviceGroup } from '#src/domain/group/device-group.entity.js';
import { DEVICE_STATES, noDevices, REACHED_FROM, type DeviceState, type StateCounts } from './policy/device-states.js';
import { TIMED_STATES, type TimedState } from './policy/timeouts.js';
import { classifyMember, targetCondition, type MemberClass } from './policy/targets.js';
import { waveEnds, type WaveBound } from './policy/waves.js';
import { RolloutDeviceState, RolloutDeviceTransition } from './rollout-device-state.entity.js';
import { Rollout, RolloutSuccess, type RolloutStatus } from './rollout.entity.js';

/** Column holding the time of each state. */
const TIME_COLUMN: Record<Exclude<DeviceState, 'pending'>, keyof RolloutDeviceState> = {
  offered: 'offeredAt',
  downloading: 'downloadingAt',
  installed: 'installedAt',
  confirmed: 'confirmedAt',
  failed: 'failedAt',
  fell_back: 'failedAt',
  timed_out: 'failedAt',
  // `failed_at` is when an attempt ended without confirming; a skip is such an end.
  skipped: 'failedAt',
};

/** Rows inserted per statement. */
const CHUNK = 200;

/**
 * Device ids per slice of {@link DeviceStateRepository.placeTargets} on SQLite: about 2,000 devices
 * examined and at most as many targets placed, some tens of milliseconds of the event loop.
 */
const PLACE_SLICE_DEVICES = 2000;

/** How a rollout's devices stand: its targets per wave and state, and the members of its group that are not targets. */
export interface RolloutProgress {
  /** Targets per wave (index 0 is wave 1) and state. */
  waves: StateCounts[];
  /** Registered members of the group of another device type than the firmware's. */
  notApplicable: number;
  /** Members of the group that no registered device of the tenant has the identifier of. */
  notRegistered: number;
}

/** A rollout a device reported success for and has not confirmed yet. */
export interface InstalledRollout {
  rolloutId: number;
  /** Target version. */
  version: string;
}

/** What a state change carries besides the state. */
export interface MoveDetails {
  /** The failure message (device's, or the server's reason). */
  message?: string | null;
  /** The version the device reported with it. */
  reportedVersion?: string;
}

/** A device's state in one rollout, with the rollout and its history (operators' device history). */
export interface DeviceRolloutState {
  rolloutId: number;
  rolloutName: string;
  rolloutStatus: RolloutStatus;
  version: string;
  state: RolloutDeviceState;
  history: RolloutDeviceTransition[];
}

/** A device's state in a rollout, as the rollout's device list shows it. */
export interface RolloutDeviceRow {
  mac: string;
  name: string;
  wave: number;
  state: DeviceState;
  attempts: number;
  /** Epoch ms. */
  updatedAt: number;
  failureMessage: string | null;
  /** The version the device runs (`''`: never reported). */
  firmwareVersion: string;
}

/** Database access for the state of each targeted device in each rollout, and its transitions. */
@Injectable()
export class DeviceStateRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Gives every target of the rollout (policy/targets.ts) that has no state in it yet the state
   * `pending` (one history entry each) in its wave: the targets in the stable order (device id)
   * cut by {@link waveEnds} of `bounds`, their number read from the kept member counts
   * (`group_member_count`). Set-based: two `INSERT … SELECT` statements per slice of devices.
   *
   * PostgreSQL places all targets in one slice. SQLite runs each statement on the event loop (and
   * the default driver synchronously), so a million devices in one statement stopped every request
   * for seconds (11 s for 500,000 targets): there the devices are walked by id in slices of
   * {@link PLACE_SLICE_DEVICES}, and with `yieldBetweenSlices` the event loop serves requests
   * between two slices, inside the still open transaction (docs/decisions.md §10: the caller makes
   * the rollout active only after the last slice, so what those requests read of it is a draft).
   * @returns how many targets the rollout has.
   */
  async placeTargets(
    manager: EntityManager,
    rolloutId: number,
    bounds: readonly WaveBound[],
    now: number,
    yieldBetweenSlices = false,
  ): Promise<number> {
    const [{ total }] = await query<{ total: unknown }[]>(
      manager,
      `SELECT COALESCE(SUM(c.members), 0) AS total FROM rollout r JOIN firmware f ON f.id = r.firmware_id
         JOIN group_member_count c ON c.group_id = r.group_id AND c.registered = 1 AND c.device_type = f.device_type
        WHERE r.id = $1`,
      [rolloutId],
    );
    const ends = waveEnds(bounds, Number(total));
    // The wave of the rn-th target (1-based): the first whose end is at or past rn (waves.ts waveOf); ends are whole numbers.
    const wave =
      ends.length === 1
        ? '1'
        : `CASE ${ends
            .slice(0, -1)
            .map((end, i) => `WHEN t.rn <= ${end} THEN ${i + 1}`)
            .join(' ')} ELSE ${ends.length} END`;
    // Targets with device ids in ($3, $4], ranked after the $5 targets of the slices before. On
    // SQLite a slice reads its range of the table by id (NOT INDEXED keeps the planner off the
    // tenant's indexes, which would walk every device of the tenant for each slice).
    const sqlite = isSqlite(manager.connection.options.type);
    const targets = `SELECT d.id AS device_id, CAST($5 AS integer) + ROW_NUMBER() OVER (ORDER BY d.id) AS rn
      FROM rollout r JOIN device d${sqlite ? ' NOT INDEXED' : ''} ON d.tenant_id = r.tenant_id WHERE r.id = $1 AND d.id > CAST($3 AS bigint) AND d.id <= CAST($4 AS bigint) AND ${targetCondition('d', 'r')}`;
    const place = async (from: number, to: number, ranked: number): Promise<void> => {
      const parameters = [rolloutId, now, from, to, ranked];
      await query(
        manager,
        `INSERT INTO rollout_device_transition (rollout_id, device_id, state, at, message)
         SELECT CAST($1 AS integer), t.device_id, 'pending', CAST($2 AS bigint), NULL FROM (${targets}) t
          WHERE NOT EXISTS (SELECT 1 FROM rollout_device_state s WHERE s.rollout_id = $1 AND s.device_id = t.device_id)`,
        parameters,
      );
      await query(
        manager,
        `INSERT INTO rollout_device_state (rollout_id, device_id, wave, state, attempts, updated_at)
         SELECT CAST($1 AS integer), t.device_id, ${wave}, 'pending', 0, CAST($2 AS bigint) FROM (${targets}) t
          WHERE NOT EXISTS (SELECT 1 FROM rollout_device_state s WHERE s.rollout_id = $1 AND s.device_id = t.device_id)`,
        parameters,
      );
    };
    if (!sqlite) {
      await place(0, Number.MAX_SAFE_INTEGER, 0);
      return Number(total);
    }
    const [range] = await query<{ low: unknown; high: unknown }[]>(manager, 'SELECT MIN(id) AS low, MAX(id) AS high FROM device');
    const high = Number(range?.high ?? 0);
    let ranked = 0;
    for (let from = Number(range?.low ?? 1) - 1; from < high && ranked < Number(total); from += PLACE_SLICE_DEVICES) {
      const to = from + PLACE_SLICE_DEVICES;
      await place(from, to, ranked);
      const [{ n }] = await query<{ n: unknown }[]>(manager, `SELECT COUNT(*) AS n FROM (${targets}) t`, [
        rolloutId,
        now,
        from,
        to,
        ranked,
      ]);
      ranked += Number(n);
      if (yieldBetweenSlices && to < high) await new Promise((next) => setImmediate(next));
    }
    return Number(total);
  }

  /** The identifiers (macs) of the devices in one of `states` in the rollout, by device id (a rollback's members, policy/rollback.ts). */
  async macsIn(manager: EntityManager, rolloutId: number, states: readonly DeviceState[]): Promise<string[]> {
    const marks = states.map((_, i) => `$${i + 2}`).join(', ');
    const rows = await query<{ mac: string }[]>(
      manager,
      `SELECT d.mac AS mac FROM rollout_device_state s JOIN device d ON d.id = s.device_id
        WHERE s.rollout_id = $1 AND s.state IN (${marks}) ORDER BY d.id`,
      [rolloutId, ...states],
    );
    return rows.map((row) => row.mac);
  }

  /** Devices `pending` in the rollout that already run `version` (a rollback rollout's devices that are back already). */
  async pendingOnVersion(manager: EntityManager, rolloutId: number, version: string): Promise<number[]> {
    const rows = await query<{ device_id: unknown }[]>(
      manager,
      `SELECT s.device_id AS device_id FROM rollout_device_state s JOIN device d ON d.id = s.device_id
        WHERE s.rollout_id = $1 AND s.state = 'pending' AND d.firmware_version = $2 ORDER BY s.device_id`,
      [rolloutId, version],
    );
    return rows.map((row) => Number(row.device_id));
  }

  /** The message kept with the device's state in each of `rolloutIds` that has one, by rollout id. */
  async messagesOf(deviceId: number, rolloutIds: readonly number[]): Promise<Map<number, string>> {
    if (rolloutIds.length === 0) return new Map();
    const rows = await this.dataSource.getRepository(RolloutDeviceState).findBy({ deviceId, rolloutId: In([...rolloutIds]) });
    return new Map(rows.filter((row) => row.failureMessage !== null).map((row) => [row.rolloutId, row.failureMessage!]));
  }

  /** The versions the devices `pending` in the rollout run, each once (a fleet runs few; `''`: never reported). */
  async pendingVersions(manager: EntityManager, rolloutId: number): Promise<string[]> {
    const rows = await query<{ version: string }[]>(
      manager,
      `SELECT DISTINCT d.firmware_version AS version FROM rollout_device_state s JOIN device d ON d.id = s.device_id
        WHERE s.rollout_id = $1 AND s.state = 'pending'`,
      [rolloutId],
    );
    return rows.map((row) => row.version);
  }

  /**
   * Settles the devices `pending` in the rollout that run `version` as `to` (`confirmed`: they run
   * the firmware's version already; `skipped`: the rollout will never update them,
   * policy/decision.ts), with `message` kept and in their history. The kept counts follow (triggers).
   * @returns how many devices moved.
   */
  async settleOnVersion(
    manager: EntityManager,
    rolloutId: number,
    version: string,
    to: 'confirmed' | 'skipped',
    now: number,
    message: string,
  ): Promise<number> {
    const column = to === 'confirmed' ? 'confirmed_at' : 'failed_at';
    const result = await query<unknown[]>(
      manager,
      `UPDATE rollout_device_state SET state = $3, updated_at = $4, ${column} = $4, reported_version = $2, failure_message = $5
        WHERE rollout_id = $1 AND state = 'pending'
          AND EXISTS (SELECT 1 FROM device d WHERE d.id = rollout_device_state.device_id AND d.firmware_version = $2)
        RETURNING device_id`,
      [rolloutId, version, to, now, message],
    );
    const rows = (Array.isArray(result[0]) ? result[0] : result) as { device_id: unknown }[];
    const ids = rows.map((row) => Number(row.device_id));
    for (let i = 0; i < ids.length; i += CHUNK) {
      const chunk = ids.slice(i, i + CHUNK);
      await manager.insert(
        RolloutDeviceTransition,
        chunk.map((deviceId) => ({ rolloutId, deviceId, state: to, at: now, message })),
      );
    }
    return ids.length;
  }

  /**
   * Gives the device a state in the rollout if it has none: `pending` in `wave` (a device that
   * joined the group after the start, in the last wave). Safe against a concurrent insert.
   * @returns whether a state was added.
   */
  async ensure(manager: EntityManager, rolloutId: number, deviceId: number, wave: number, now: number): Promise<boolean> {
    const rows = await query<unknown[]>(
      manager,
      `INSERT INTO rollout_device_state (rollout_id, device_id, wave, state, attempts, updated_at)
       VALUES ($1, $2, $3, 'pending', 0, $4) ON CONFLICT (rollout_id, device_id) DO NOTHING RETURNING device_id`,
      [rolloutId, deviceId, wave, now],
    );
    if (rows.length === 0) return false;
    await manager.insert(RolloutDeviceTransition, { rolloutId, deviceId, state: 'pending', at: now, message: null });
    return true;
  }

  /**
   * Moves the device to `to` if its state is one `to` may be reached from ({@link REACHED_FROM}),
   * with the time, and records the transition. A guarded update: of concurrent moves (also from
   * other instances) only those that still find an allowed state happen.
   * @returns whether the device moved.
   */
  async move(
    manager: EntityManager,
    rolloutId: number,
    deviceId: number,
    to: Exclude<DeviceState, 'pending'>,
    now: number,
    details: MoveDetails = {},
    from: readonly DeviceState[] = REACHED_FROM[to],
  ): Promise<boolean> {
    const set: Record<string, unknown> = { state: to, updatedAt: now, [TIME_COLUMN[to]]: now };
    if (to === 'offered') set['attempts'] = () => 'attempts + 1';
    if (details.reportedVersion !== undefined) set['reportedVersion'] = details.reportedVersion;
    if (details.message !== undefined) set['failureMessage'] = details.message;
    const result = await manager
      .createQueryBuilder()
      .update(RolloutDeviceState)
      .set(set)
      .where('rollout_id = :rolloutId AND device_id = :deviceId', { rolloutId, deviceId })
      .andWhere('state IN (:...from)', { from })
      .execute();
    if (!result.affected) return false;
    await manager.insert(RolloutDeviceTransition, { rolloutId, deviceId, state: to, at: now, message: details.message ?? null });
    return true;
  }

  /**
   * Sends the device back to `pending` if its state is one of `from` (it acknowledged a
   * cancellation, policy/device-actions.ts), with the message in its history. A guarded update.
   * @returns whether the device moved.
   */
  async withdraw(
    manager: EntityManager,
    rolloutId: number,
    deviceId: number,
    from: readonly DeviceState[],
    now: number,
    message: string,
  ): Promise<boolean> {
    const result = await manager
      .createQueryBuilder()
      .update(RolloutDeviceState)
      .set({ state: 'pending', updatedAt: now })
      .where('rollout_id = :rolloutId AND device_id = :deviceId', { rolloutId, deviceId })
      .andWhere('state IN (:...from)', { from })
      .execute();
    if (!result.affected) return false;
    await manager.insert(RolloutDeviceTransition, { rolloutId, deviceId, state: 'pending', at: now, message });
    return true;
  }

  /**
   * Keeps a problem the device reported while its attempt is open (`offered`, `downloading`,
   * `installed`) as its message, without moving it; a later failure report can name it.
   */
  async noteMessage(rolloutId: number, deviceId: number, message: string): Promise<void> {
    await this.dataSource
      .createQueryBuilder()
      .update(RolloutDeviceState)
      .set({ failureMessage: message })
      .where('rollout_id = :rolloutId AND device_id = :deviceId', { rolloutId, deviceId })
      .andWhere('state IN (:...open)', { open: ['offered', 'downloading', 'installed'] })
      .execute();
  }

  /** Replaces the message of the device's state in the rollout, where it is in `state`. */
  async setFailureMessage(rolloutId: number, deviceId: number, state: DeviceState, message: string): Promise<void> {
    await this.dataSource
      .createQueryBuilder()
      .update(RolloutDeviceState)
      .set({ failureMessage: message })
      .where('rollout_id = :rolloutId AND device_id = :deviceId AND state = :state', { rolloutId, deviceId, state })
      .execute();
  }

  /** The device's state in the rollout, or `null`. */
  find(manager: EntityManager = this.dataSource.manager, rolloutId: number, deviceId: number): Promise<RolloutDeviceState | null> {
    return manager.findOneBy(RolloutDeviceState, { rolloutId, deviceId });
  }

  /** The device's state changes in the rollout, newest first, at most `limit`. */
  history(rolloutId: number, deviceId: number, limit: number): Promise<RolloutDeviceTransition[]> {
    return this.dataSource
      .getRepository(RolloutDeviceTransition)
      .find({ where: { rolloutId, deviceId }, order: { id: 'DESC' }, take: limit });
  }

  /** Rollouts of the tenant's device with `mac` that it reported success for and has not confirmed, with their target versions. */
  async installedOf(tenantId: number, mac: string): Promise<{ deviceId: number; rollouts: InstalledRollout[] } | null> {
    const rows = await query<{ device_id: unknown; rollout_id: unknown; version: string | null }[]>(
      this.dataSource.manager,
      `SELECT d.id AS device_id, s.rollout_id AS rollout_id, f.version AS version
         FROM device d
         LEFT JOIN rollout_device_state s ON s.device_id = d.id AND s.state = 'installed'
         LEFT JOIN rollout r ON r.id = s.rollout_id
         LEFT JOIN firmware f ON f.id = r.firmware_id
        WHERE d.tenant_id = $1 AND d.mac = $2`,
      [tenantId, mac],
    );
    if (rows.length === 0) return null;
    return {
      deviceId: Number(rows[0].device_id),
      rollouts: rows.filter((row) => row.rollout_id !== null).map((row) => ({ rolloutId: Number(row.rollout_id), version: row.version! })),
    };
  }

  /** Rollouts (active, of firmware `firmwareId`) in which the device is `pending` or `offered`. */
  async awaitingDownload(manager: EntityManager, deviceId: number, firmwareId: number): Promise<number[]> {
    const rows = await manager
      .createQueryBuilder()
      .from(RolloutDeviceState, 's')
      .innerJoin(Rollout, 'r', 'r.id = s.rollout_id')
      .select('s.rollout_id', 'id')
      .where('s.device_id = :deviceId AND s.state IN (:...states)', { deviceId, states: REACHED_FROM.downloading })
      .andWhere("r.firmware_id = :firmwareId AND r.status = 'active'", { firmwareId })
      .getRawMany<{ id: unknown }>();
    return rows.map((row) => Number(row.id));
  }

  /**
   * Up to `limit` (rollout, device) pairs `installed` and unchanged since before `cutoff` (epoch
   * ms), but in running rollouts with a timeout of their own for `installed` (those time out instead:
   * {@link timedOut}).
   */
  async silentSince(cutoff: number, limit: number): Promise<{ rolloutId: number; deviceId: number }[]> {
    const rows = await this.dataSource
      .createQueryBuilder()
      .from(RolloutDeviceState, 's')
      .innerJoin(Rollout, 'r', "r.id = s.rollout_id AND (r.timeout_installed IS NULL OR r.status NOT IN ('active', 'paused'))")
      .select(['s.rollout_id AS "rolloutId"', 's.device_id AS "deviceId"'])
      .where("s.state = 'installed' AND s.updated_at < :cutoff", { cutoff })
      .limit(limit)
      .getRawMany<{ rolloutId: unknown; deviceId: unknown }>();
    return rows.map((row) => ({ rolloutId: Number(row.rolloutId), deviceId: Number(row.deviceId) }));
  }

  /**
   * Up to `limit` devices of running (active or paused) rollouts that stayed in a state longer than
   * the rollout's timeout of that state (docs/decisions.md §10.2): `offered`, `downloading` or
   * `installed` and unchanged for more than `timeout_<state>` seconds at `now` (epoch ms).
   */
  async timedOut(now: number, limit: number): Promise<{ rolloutId: number; deviceId: number; state: TimedState; seconds: number }[]> {
    const late = (state: TimedState) =>
      `(s.state = '${state}' AND r.timeout_${state} IS NOT NULL AND s.updated_at + r.timeout_${state} * 1000 < CAST($1 AS bigint))`;
    const rows = await query<{ rollout_id: unknown; device_id: unknown; state: TimedState; seconds: unknown }[]>(
      this.dataSource.manager,
      `SELECT s.rollout_id AS rollout_id, s.device_id AS device_id, s.state AS state,
              CASE s.state WHEN 'offered' THEN r.timeout_offered WHEN 'downloading' THEN r.timeout_downloading
                           ELSE r.timeout_installed END AS seconds
         FROM rollout r JOIN rollout_device_state s ON s.rollout_id = r.id
        WHERE r.status IN ('active', 'paused')
          AND (r.timeout_offered IS NOT NULL OR r.timeout_downloading IS NOT NULL OR r.timeout_installed IS NOT NULL)
          AND (${TIMED_STATES.map(late).join(' OR ')})
        LIMIT ${Math.max(1, Math.floor(limit))}`,
      [now],
    );
    return rows.map((row) => ({
      rolloutId: Number(row.rollout_id),
      deviceId: Number(row.device_id),
      state: row.state,
      seconds: Number(row.seconds),
    }));
  }

  /**
   * A rollout's devices with a state per wave and state, as the database keeps them counted
   * (`rollout_wave_count`, maintained by triggers in the transaction of every change: docs/decisions.md
   * §10): a few rows, whatever the size of the rollout. Index 0 is wave 1. Targets that have no state
   * yet (they became targets after the start and have not asked since) are not in it: see
   * {@link progress}.
   */
  async waveCounts(rolloutId: number, waveCount: number, manager: EntityManager = this.dataSource.manager): Promise<StateCounts[]> {
    const rows = await query<{ wave: unknown; state: DeviceState; n: unknown }[]>(
      manager,
      'SELECT wave, state, devices AS n FROM rollout_wave_count WHERE rollout_id = $1 AND devices <> 0',
      [rolloutId],
    );
    const waves = Array.from({ length: waveCount }, noDevices);
    for (const row of rows) {
      const counts = waves[Math.min(Math.max(Number(row.wave), 1), waveCount) - 1];
      const n = Number(row.n);
      if ((DEVICE_STATES as readonly string[]).includes(row.state)) counts[row.state] += n;
      counts.targeted += n;
    }
    return waves;
  }

  /**
   * How a rollout's devices stand (docs/decisions.md §10): its targets per wave and state
   * ({@link waveCounts}), targets without a state yet as `pending` in the last wave, and the members
   * of its group that are not targets, by why ({@link classifyMember}). The members are read as the
   * database keeps them counted per group, registration and device type (`group_member_count`,
   * migration GroupMemberCounts): a few rows, whatever the size of the group.
   */
  async progress(rolloutId: number, waveCount: number, manager: EntityManager = this.dataSource.manager): Promise<RolloutProgress> {
    const waves = await this.waveCounts(rolloutId, waveCount, manager);
    const rows = await query<{ registered: unknown; member_type: string; firmware_type: string; n: unknown }[]>(
      manager,
      `SELECT c.registered, c.device_type AS member_type, f.device_type AS firmware_type, c.members AS n
         FROM rollout r JOIN firmware f ON f.id = r.firmware_id JOIN group_member_count c ON c.group_id = r.group_id
        WHERE r.id = $1 AND c.members <> 0`,
      [rolloutId],
    );
    const members: Record<MemberClass, number> = { target: 0, not_applicable: 0, not_registered: 0 };
    for (const row of rows) {
      const device = Number(row.registered) === 1 ? { deviceType: row.member_type } : null;
      members[classifyMember(device, { deviceType: row.firmware_type })] += Number(row.n);
    }
    const withState = waves.reduce((n, wave) => n + wave.targeted, 0);
    const last = waves[waveCount - 1];
    const withoutState = Math.max(0, members.target - withState);
    last.pending += withoutState;
    last.targeted += withoutState;
    return { waves, notApplicable: members.not_applicable, notRegistered: members.not_registered };
  }

  /**
   * Removes the states of the tenant's devices with identifiers `macs` in the running (active or
   * paused) rollouts to group `groupId`: they left the group, so they are no targets there any more
   * (docs/decisions.md §10); their history stays.
   * @returns how many states went.
   */
  async dropLeavers(manager: EntityManager, groupId: number, macs: readonly string[]): Promise<number> {
    let dropped = 0;
    for (let i = 0; i < macs.length; i += CHUNK) {
      const chunk = macs.slice(i, i + CHUNK);
      const list = chunk.map((_, n) => `$${n + 2}`).join(', ');
      const rows = await query<unknown[]>(
        manager,
        `DELETE FROM rollout_device_state
          WHERE rollout_id IN (SELECT r.id FROM rollout r WHERE r.group_id = $1 AND r.status IN ('active', 'paused'))
            AND device_id IN (SELECT d.id FROM device d JOIN device_group g ON g.id = $1 AND d.tenant_id = g.tenant_id
                               WHERE d.mac IN (${list})
                                 AND NOT EXISTS (SELECT 1 FROM group_member m WHERE m.group_id = $1 AND m.mac = d.mac))
         RETURNING device_id`,
        [groupId, ...chunk],
      );
      dropped += Array.isArray(rows) ? (Array.isArray(rows[0]) ? (rows[0] as unknown[]).length : rows.length) : 0;
    }
    return dropped;
  }

  /**
   * Time of the latest state change in the rollout (epoch ms), or `null`: the latest of each state
   * but `pending`, each one seek of the `(rollout_id, state, updated_at)` index (a rollout of a
   * million devices has as many states).
   */
  async lastChange(rolloutId: number, manager: EntityManager = this.dataSource.manager): Promise<number | null> {
    const states = DEVICE_STATES.filter((state) => state !== 'pending');
    const latest = states
      .map((_, i) => `SELECT (SELECT MAX(updated_at) FROM rollout_device_state WHERE rollout_id = $1 AND state = $${i + 2}) AS last`)
      .join(' UNION ALL ');
    const rows = await query<{ last: unknown }[]>(manager, `SELECT MAX(l.last) AS last FROM (${latest}) l`, [rolloutId, ...states]);
    return rows[0]?.last == null ? null : Number(rows[0].last);
  }

  /** Sends the rollout's devices in `states` back to `pending` (history entry `pending`, message `retried`); how many moved. */
  async reset(manager: EntityManager, rolloutId: number, states: readonly DeviceState[], now: number): Promise<number> {
    const ids = (
      await manager
        .createQueryBuilder()
        .from(RolloutDeviceState, 's')
        .select('s.device_id', 'id')
        .where('s.rollout_id = :rolloutId AND s.state IN (:...states)', { rolloutId, states })
        .getRawMany<{ id: unknown }>()
    ).map((row) => Number(row.id));
    for (let i = 0; i < ids.length; i += CHUNK) {
      const chunk = ids.slice(i, i + CHUNK);
      await manager
        .createQueryBuilder()
        .update(RolloutDeviceState)
        .set({ state: 'pending', updatedAt: now })
        .where('rollout_id = :rolloutId AND device_id IN (:...chunk) AND state IN (:...states)', { rolloutId, chunk, states })
        .execute();
      await manager
        .createQueryBuilder()
        .delete()
        .from(RolloutSuccess)
        .where('rollout_id = :rolloutId AND device_id IN (:...chunk)', { rolloutId, chunk })
        .execute();
      await manager
        .createQueryBuilder()
        .insert()
        .into(RolloutDeviceTransition)
        .values(chunk.map((deviceId) => ({ rolloutId, deviceId, state: 'pending' as const, at: now, message: 'retried' })))
        .execute();
    }
    return ids.length;
  }

  /** One page of a rollout's devices with a state (of one state and wave, if given), by wave then device id, and their total. */
  async pageDevices(
    rolloutId: number,
    filter: { state?: DeviceState; wave?: number },
    offset: number,
    limit: number,
  ): Promise<[RolloutDeviceRow[], number]> {
    const base = this.dataSource
      .createQueryBuilder()
      .from(RolloutDeviceState, 's')
      .innerJoin(Device, 'd', 'd.id = s.device_id')
      .where('s.rollout_id = :rolloutId', { rolloutId });
    if (filter.state !== undefined) base.andWhere('s.state = :state', { state: filter.state });
    if (filter.wave !== undefined) base.andWhere('s.wave = :wave', { wave: filter.wave });
    const total = await base.clone().select('COUNT(*)', 'n').getRawOne<{ n: unknown }>();
    const rows = await base
      .select(['d.mac AS mac', 'd.name AS name', 'd.firmware_version AS "firmwareVersion"', 's.wave AS wave', 's.state AS state'])
      .addSelect('s.attempts AS attempts')
      .addSelect(['s.updated_at AS "updatedAt"', 's.failure_message AS "failureMessage"'])
      .orderBy('s.wave', 'ASC')
      .addOrderBy('s.device_id', 'ASC')
      .offset(offset)
      .limit(limit)
      .getRawMany<Record<keyof RolloutDeviceRow, unknown>>();
    return [
      rows.map((row) => ({
        mac: String(row.mac),
        name: String(row.name),
        wave: Number(row.wave),
        state: row.state as DeviceState,
        attempts: Number(row.attempts),
        updatedAt: Number(row.updatedAt),
        failureMessage: (row.failureMessage as string | null) ?? null,
        firmwareVersion: String(row.firmwareVersion),
      })),
      Number(total?.n ?? 0),
    ];
  }

  /** The device's state in every rollout of the tenant it has one in, by rollout id, each with its history (oldest first). */
  async deviceStates(tenantId: number, deviceId: number): Promise<DeviceRolloutState[]> {
    const states = await this.dataSource
      .createQueryBuilder()
      .from(RolloutDeviceState, 's')
      .innerJoin(Rollout, 'r', 'r.id = s.rollout_id')
      .innerJoin(Firmware, 'f', 'f.id = r.firmware_id')
      .innerJoin(DeviceGroup, 'g', 'g.id = r.group_id')
      .select(['s.rollout_id AS "rolloutId"', 'r.name AS name', 'r.status AS status', 'f.version AS version'])
      .where('s.device_id = :deviceId AND r.tenant_id = :tenantId', { deviceId, tenantId })
      .orderBy('s.rollout_id', 'ASC')
      .getRawMany<{ rolloutId: unknown; name: string; status: RolloutStatus; version: string }>();
    if (states.length === 0) return [];
    const rows = await this.dataSource.getRepository(RolloutDeviceState).findBy({ deviceId });
    const history = await this.dataSource.getRepository(RolloutDeviceTransition).find({ where: { deviceId }, order: { id: 'ASC' } });
    return states.map((row) => {
      const rolloutId = Number(row.rolloutId);
      return {
        rolloutId,
        rolloutName: row.name,
        rolloutStatus: row.status,
        version: row.version,
        state: rows.find((s) => s.rolloutId === rolloutId)!,
        history: history.filter((t) => t.rolloutId === rolloutId),
      };
    });
  }
}
