import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { SCHEMA } from '#src/app/schema.js';
import { dataSourceOptions } from '#src/platform/database/data-source-options.js';
import { DeviceStateRepository } from './device-state.repository.js';
import { classifyMember, isTarget, targetCondition, type MemberClass, type TargetDevice } from './policy/targets.js';

/**
 * The target rule's two forms (policy/targets.ts) over one table of cases, on the migrated schema:
 * the SQL fragment every statement uses must decide exactly as the predicate the docs describe, and
 * the member counts the database keeps must class the group's members as the predicate does.
 */
describe('the target rule: predicate and SQL agree', () => {
  let dir: string;
  let db: DataSource;

  /** Devices by tenant: `mac → device type`. Tenant 1 owns the rollout (ESP32 firmware, group `g`). */
  const DEVICES: (TargetDevice & { id: number })[] = [
    { id: 1, tenantId: 1, mac: '02:00:00:00:00:01', deviceType: 'ESP32' }, // member, right type: target
    { id: 2, tenantId: 1, mac: '02:00:00:00:00:02', deviceType: 'ESP8266' }, // member, other type: not applicable
    { id: 3, tenantId: 2, mac: '02:00:00:00:00:04', deviceType: 'ESP32' }, // member's mac, but another tenant's device
    { id: 4, tenantId: 1, mac: '02:00:00:00:00:05', deviceType: 'ESP32' }, // right type, not a member
    { id: 5, tenantId: 1, mac: '02:00:00:00:00:06', deviceType: 'ESP32' }, // member, right type: target
  ];
  /** Members of group `g`: 03 is registered nowhere, 04 only in tenant 2. */
  const MEMBERS = ['02:00:00:00:00:01', '02:00:00:00:00:02', '02:00:00:00:00:03', '02:00:00:00:00:04', '02:00:00:00:00:06'];
  const ROLLOUT = { tenantId: 1, members: new Set(MEMBERS), deviceType: 'ESP32' };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'firmledger-targets-'));
    db = await new DataSource(dataSourceOptions({ databasePath: join(dir, 'db.sqlite') }, SCHEMA)).initialize();
    for (const tenant of [1, 2]) {
      await db.query(`INSERT INTO tenant (id, name, customer_key, created_at) VALUES (?, ?, 'k', 0)`, [tenant, `t${tenant}`]);
      await db.query(`INSERT INTO device_key (id, tenant_id, key, device_type, created_at) VALUES (?, ?, ?, 'ESP32', 0)`, [
        tenant,
        tenant,
        `k${tenant}`,
      ]);
    }
    for (const d of DEVICES) {
      await db.query(
        `INSERT INTO device (id, tenant_id, mac, name, firmware_version, device_key_id, device_type, created_at)
         VALUES (?, ?, ?, 'd', '1.0.0', ?, ?, 0)`,
        [d.id, d.tenantId, d.mac, d.tenantId, d.deviceType],
      );
    }
    await db.query(`INSERT INTO firmware (id, tenant_id, version, device_type, size, md5, sha256, cid, created_at)
      VALUES (1, 1, '2.0.0', 'ESP32', 1, 'm', 's', 'c', 0)`);
    await db.query(`INSERT INTO device_group (id, tenant_id, name, created_at) VALUES (1, 1, 'g', 0)`);
    for (const mac of MEMBERS) await db.query(`INSERT INTO group_member (group_id, mac) VALUES (1, ?)`, [mac]);
    await db.query(`INSERT INTO rollout (id, tenant_id, name, firmware_id, group_id, priority, start_date, status, created_at)
      VALUES (1, 1, 'r', 1, 1, 1, 0, 'draft', 0)`);
  });

  after(async () => {
    await db.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  it('selects the same devices as targets', async () => {
    const rows = await db.query<{ id: number }[]>(
      `SELECT device.id AS id FROM device, rollout WHERE rollout.id = 1 AND ${targetCondition('device', 'rollout')} ORDER BY device.id`,
    );
    const expected = DEVICES.filter((d) => isTarget(d, ROLLOUT)).map((d) => d.id);
    assert.deepEqual(
      rows.map((row) => Number(row.id)),
      expected,
    );
    assert.deepEqual(expected, [1, 5], 'the table holds both kinds of non-targets');
  });

  it('counts every member in the class the predicate gives it', async () => {
    const expected = MEMBERS.map((mac) =>
      classifyMember(DEVICES.find((d) => d.tenantId === ROLLOUT.tenantId && d.mac === mac) ?? null, ROLLOUT),
    );
    const of = (kind: MemberClass) => expected.filter((c) => c === kind).length;
    assert.deepEqual(expected, ['target', 'not_applicable', 'not_registered', 'not_registered', 'target']);
    const progress = await new DeviceStateRepository(db).progress(1, 1);
    assert.deepEqual(
      { targeted: progress.waves[0].targeted, notApplicable: progress.notApplicable, notRegistered: progress.notRegistered },
      { targeted: of('target'), notApplicable: of('not_applicable'), notRegistered: of('not_registered') },
    );
  });
});
