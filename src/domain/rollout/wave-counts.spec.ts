import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { SCHEMA } from '#src/app/schema.js';
import { dataSourceOptions } from '#src/platform/database/data-source-options.js';
import { DEVICE_STATES } from './policy/device-states.js';

/**
 * The per-wave counts the database keeps (migration RolloutWaveCounts: triggers on
 * rollout_device_state) always equal counting the states, whatever inserts, moves, wave changes
 * and deletes (also a device's delete cascading to its states) happened, in any order.
 */
describe('rollout_wave_count, kept by the database', () => {
  let dir: string;
  let db: DataSource;
  const DEVICES = 12;

  /** The kept counts and the counted ones, as sorted `rollout/wave/state=n` lines. */
  const both = async (): Promise<[string[], string[]]> => {
    type Row = { rollout_id: number; wave: number; state: string; n: number };
    const line = (r: Row) => `${r.rollout_id}/${r.wave}/${r.state}=${r.n}`;
    const kept = await db.query<Row[]>('SELECT rollout_id, wave, state, devices AS n FROM rollout_wave_count WHERE devices <> 0');
    const counted = await db.query<Row[]>(
      'SELECT rollout_id, wave, state, COUNT(*) AS n FROM rollout_device_state GROUP BY rollout_id, wave, state',
    );
    return [kept.map(line).sort(), counted.map(line).sort()];
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'firmledger-wave-counts-'));
    db = await new DataSource(dataSourceOptions({ databasePath: join(dir, 'db.sqlite') }, SCHEMA)).initialize();
    await db.query(`INSERT INTO tenant (id, name, customer_key, created_at) VALUES (1, 't', 'k', 0)`);
    await db.query(
      `INSERT INTO firmware (id, tenant_id, version, device_type, size, md5, sha256, cid, created_at) VALUES (1, 1, '2', 'E', 1, 'm', 's', 'c', 0)`,
    );
    await db.query(`INSERT INTO device_group (id, tenant_id, name, created_at) VALUES (1, 1, 'g', 0)`);
    for (const id of [1, 2]) {
      await db.query(
        `INSERT INTO rollout (id, tenant_id, name, firmware_id, group_id, priority, start_date, status, created_at)
        VALUES (?, 1, 'r', 1, 1, 1, 0, 'active', 0)`,
        [id],
      );
    }
  });

  after(async () => {
    await db.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  const op = fc.oneof(
    fc.record({
      kind: fc.constant('insert' as const),
      rollout: fc.constantFrom(1, 2),
      device: fc.integer({ min: 1, max: DEVICES }),
      wave: fc.integer({ min: 1, max: 3 }),
    }),
    fc.record({
      kind: fc.constant('move' as const),
      rollout: fc.constantFrom(1, 2),
      device: fc.integer({ min: 1, max: DEVICES }),
      state: fc.constantFrom(...DEVICE_STATES),
    }),
    fc.record({
      kind: fc.constant('rewave' as const),
      rollout: fc.constantFrom(1, 2),
      device: fc.integer({ min: 1, max: DEVICES }),
      wave: fc.integer({ min: 1, max: 3 }),
    }),
    fc.record({ kind: fc.constant('delete' as const), rollout: fc.constantFrom(1, 2), device: fc.integer({ min: 1, max: DEVICES }) }),
    fc.record({ kind: fc.constant('delete-device' as const), device: fc.integer({ min: 1, max: DEVICES }) }),
  );

  it('equal the counted states after any sequence of changes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
        await db.query('DELETE FROM rollout_device_state');
        await db.query('DELETE FROM device');
        for (let id = 1; id <= DEVICES; id++) {
          await db.query(
            `INSERT INTO device (id, tenant_id, mac, name, firmware_version, device_type, created_at) VALUES (?, 1, ?, 'd', '1', 'E', 0)`,
            [id, `02:00:00:00:00:${id.toString(16).padStart(2, '0')}`],
          );
        }
        const deleted = new Set<number>();
        for (const o of ops) {
          if (o.kind === 'insert') {
            if (deleted.has(o.device)) continue; // a state needs its device

            await db.query(
              `INSERT INTO rollout_device_state (rollout_id, device_id, wave, state, attempts, updated_at) VALUES (?, ?, ?, 'pending', 0, 0)
              ON CONFLICT (rollout_id, device_id) DO NOTHING`,
              [o.rollout, o.device, o.wave],
            );
          } else if (o.kind === 'move') {
            await db.query('UPDATE rollout_device_state SET state = ? WHERE rollout_id = ? AND device_id = ?', [
              o.state,
              o.rollout,
              o.device,
            ]);
          } else if (o.kind === 'rewave') {
            await db.query('UPDATE rollout_device_state SET wave = ? WHERE rollout_id = ? AND device_id = ?', [
              o.wave,
              o.rollout,
              o.device,
            ]);
          } else if (o.kind === 'delete') {
            await db.query('DELETE FROM rollout_device_state WHERE rollout_id = ? AND device_id = ?', [o.rollout, o.device]);
          } else {
            await db.query('DELETE FROM device WHERE id = ?', [o.device]);
            deleted.add(o.device);
          }
        }
        const [kept, counted] = await both();
        assert.deepEqual(kept, counted);
      }),
      { numRuns: 60 },
    );
  });
});
