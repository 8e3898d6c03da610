import 'reflect-metadata';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PayloadTooLargeException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '#src/platform/common/clock.js';
import { dataSourceOptions } from '#src/platform/database/data-source-options.js';
import { SCHEMA } from '#src/app/schema.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { CheckpointService } from './checkpoint.service.js';
import { LedgerTreeRepository } from './ledger-tree.repository.js';
import { LedgerTreeService } from './ledger-tree.service.js';
import { LedgerRepository } from './ledger.repository.js';
import { ED25519, generateSigner } from '#src/platform/crypto/signed-note.js';
import { LedgerService, type LedgerEvent } from './ledger.service.js';

const ZEROS = '0'.repeat(64);

/** A clock that moves one second per reading, so every entry has its own time. */
class SteppingClock extends Clock {
  constructor(private ms: number) {
    super();
  }
  now(): number {
    this.ms += 1000;
    return this.ms;
  }
}

/** The ledger with its tree and checkpoints over one data source, signing with a new key. */
function ledgerOver(dataSource: DataSource, clock: Clock): LedgerService {
  const config = {
    ledgerSigningKey: generateSigner('spec/log', ED25519).secret,
    ledgerWitnessKeys: [],
    ledgerWitnessQuorum: 0,
  } as unknown as AppConfig;
  const treeNodes = new LedgerTreeRepository(dataSource);
  const tree = new LedgerTreeService(treeNodes);
  return new LedgerService(new LedgerRepository(dataSource), tree, treeNodes, new CheckpointService(config, tree, treeNodes, clock), clock);
}

/** A stored row as SQLite holds it. */
interface Row {
  seq: number;
  tenant_id: number;
  type: string;
  subject: string;
  payload: string;
  created_at: number;
  prev_hash: string;
  hash: string;
}

/** The hash rule written out independently: sha256(prev + "\n" + hand-built canonical JSON). */
function specHash(prevHash: string, r: Omit<Row, 'prev_hash' | 'hash'>): string {
  const text =
    `{"createdAt":${r.created_at},"payload":${JSON.stringify(r.payload)},"seq":${r.seq},` +
    `"subject":${JSON.stringify(r.subject)},"tenantId":${r.tenant_id},"type":${JSON.stringify(r.type)}}`;
  return createHash('sha256').update(`${prevHash}\n${text}`, 'utf8').digest('hex');
}

const EVENTS: LedgerEvent[] = [
  { tenantId: 1, type: 'tenant.created', subject: 'tenant:1', state: { id: 1, name: 'acme' } },
  {
    tenantId: 1,
    type: 'device.registered',
    subject: 'device:AC:67:B2:01:02:03',
    state: { mac: 'AC:67:B2:01:02:03', name: 'one', firmwareVersion: '1.0.0' },
  },
  { tenantId: 1, type: 'firmware.published', subject: 'firmware:1', state: { id: 1, version: '1.1.0', deviceType: 'ESP32' } },
  {
    tenantId: 1,
    type: 'device.updated',
    subject: 'device:AC:67:B2:01:02:03',
    state: { mac: 'AC:67:B2:01:02:03', name: 'one', firmwareVersion: '1.1.0' },
  },
  {
    tenantId: 2,
    type: 'device.registered',
    subject: 'device:AC:67:B2:01:02:03',
    state: { mac: 'AC:67:B2:01:02:03', name: 'other tenant', firmwareVersion: '9.9.9' },
  },
];

interface Ledger {
  dataSource: DataSource;
  ledger: LedgerService;
  unitOfWork: UnitOfWork;
  rows: () => Promise<Row[]>;
}

describe(LedgerService.name, () => {
  let dir: string;
  const opened: DataSource[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'firmledger-ledger-'));
  });

  after(async () => {
    for (const dataSource of opened) if (dataSource.isInitialized) await dataSource.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  /** A fresh database (migrations run) with the five EVENTS appended. */
  async function seeded(name: string): Promise<Ledger> {
    const dataSource = new DataSource(dataSourceOptions({ databasePath: join(dir, `${name}.sqlite`) }, SCHEMA));
    opened.push(dataSource);
    await dataSource.initialize();
    const ledger = ledgerOver(dataSource, new SteppingClock(1_700_000_000_000));
    const unitOfWork = new UnitOfWork(dataSource);
    for (const event of EVENTS) await unitOfWork.transaction((m) => ledger.append(m, event));
    return { dataSource, ledger, unitOfWork, rows: () => dataSource.query('SELECT * FROM ledger_entry ORDER BY seq') };
  }

  describe('append', () => {
    it('stores entries 1..5 chained from the zero hash by the documented rule', async () => {
      const { rows } = await seeded('append');
      const stored = await rows();
      assert.deepEqual(
        stored.map((r) => r.seq),
        [1, 2, 3, 4, 5],
      );
      let prev = ZEROS;
      for (const row of stored) {
        assert.equal(row.prev_hash, prev, `prev_hash of ${row.seq}`);
        assert.equal(row.hash, specHash(prev, row), `hash of ${row.seq}`);
        prev = row.hash;
      }
    });

    it('stores the state as canonical JSON (sorted keys)', async () => {
      const { rows } = await seeded('payload');
      const stored = await rows();
      assert.equal(stored[1].payload, '{"firmwareVersion":"1.0.0","mac":"AC:67:B2:01:02:03","name":"one"}');
      assert.equal(stored[1].created_at, 1_700_000_002_000);
    });

    it('rolls back with the transaction it is part of', async () => {
      const { ledger, unitOfWork, rows } = await seeded('rollback');
      await assert.rejects(
        unitOfWork.transaction(async (m) => {
          await ledger.append(m, { tenantId: 1, type: 'device.deleted', subject: 'device:AC:67:B2:01:02:03', state: {} });
          throw new Error('state change failed');
        }),
        /state change failed/,
      );
      assert.equal((await rows()).length, 5);
      assert.equal((await ledger.verify()).ok, true);
    });

    it('refuses an entry whose leaf text would not fit a C2SP entry bundle (65,535 bytes), and takes one that does', async () => {
      const { ledger, unitOfWork, rows } = await seeded('large');
      const event = (bytes: number): LedgerEvent => ({
        tenantId: 1,
        type: 'group.created',
        subject: 'group:1',
        state: { name: 'x'.repeat(bytes) },
      });
      const overhead =
        Buffer.byteLength((await rows())[0].hash) +
        1 +
        '{"createdAt":1700000006000,"payload":"{\\"name\\":\\"\\"}","seq":6,"subject":"group:1","tenantId":1,"type":"group.created"}'
          .length;
      await assert.rejects(
        unitOfWork.transaction((m) => ledger.append(m, event(65_536 - overhead))),
        (error: Error) =>
          error instanceof PayloadTooLargeException && /would be 65536 bytes; an entry holds at most 65535/.test(error.message),
      );
      assert.equal((await rows()).length, 5, 'nothing was appended');
      await unitOfWork.transaction((m) => ledger.append(m, event(65_535 - overhead)));
      assert.equal((await rows()).length, 6);
    });
  });

  describe('hold', () => {
    const event = (n: number): LedgerEvent => ({ tenantId: 1, type: 'group.created', subject: `group:${n}`, state: { n } });
    const subjects = async (rows: () => Promise<Row[]>) => (await rows()).slice(5).map((r) => r.subject);

    it('appends at the end of the transaction, or first when the transaction appends again, in the order held', async () => {
      const { ledger, unitOfWork, rows } = await seeded('hold');
      await unitOfWork.transaction(async (m) => {
        await ledger.hold(m, event(1));
        await ledger.hold(m, event(2));
        assert.equal((await m.query('SELECT count(*) AS n FROM ledger_entry'))[0].n, 5, 'held, not appended yet');
        await ledger.append(m, event(3));
        await ledger.hold(m, event(4));
        assert.equal((await m.query('SELECT count(*) AS n FROM ledger_entry'))[0].n, 8);
      });
      assert.deepEqual(await subjects(rows), ['group:1', 'group:2', 'group:3', 'group:4']);
      assert.equal((await ledger.verify()).ok, true);
    });

    it('rolls back with its transaction, and appends at once outside a unit-of-work transaction', async () => {
      const { dataSource, ledger, unitOfWork, rows } = await seeded('hold-rollback');
      await assert.rejects(
        unitOfWork.transaction(async (m) => {
          await ledger.hold(m, event(1));
          throw new Error('state change failed');
        }),
        /state change failed/,
      );
      assert.deepEqual(await subjects(rows), []);
      await ledger.hold(dataSource.manager, event(2));
      assert.deepEqual(await subjects(rows), ['group:2']);
      assert.equal((await ledger.verify()).ok, true);
    });

    it('writes the same entries and tree as appending one by one', async () => {
      const oneByOne = await seeded('one-by-one');
      const dataSource = new DataSource(dataSourceOptions({ databasePath: join(dir, 'held-at-once.sqlite') }, SCHEMA));
      opened.push(dataSource);
      await dataSource.initialize();
      const ledger = ledgerOver(dataSource, new SteppingClock(1_700_000_000_000));
      await new UnitOfWork(dataSource).transaction(async (m) => {
        for (const held of EVENTS) await ledger.hold(m, held);
      });
      const tree = 'SELECT level, idx, hash FROM ledger_tree_node ORDER BY level, idx';
      assert.deepEqual(await dataSource.query('SELECT * FROM ledger_entry ORDER BY seq'), await oneByOne.rows());
      assert.deepEqual(await dataSource.query(tree), await oneByOne.dataSource.query(tree));
      assert.equal((await dataSource.query(tree)).length, 5 + 2 + 1, 'leaves, then the subtrees of 2 and of 4 leaves');
      assert.equal((await ledger.verify()).ok, true);
    });

    it("still appends when the tree's right edge lacks a node (altered by hand): the entry is written, verify names the gap", async () => {
      const { dataSource, ledger, unitOfWork, rows } = await seeded('edge-gap');
      await dataSource.query('DELETE FROM ledger_tree_node WHERE level = 0 AND idx = 4');
      await unitOfWork.transaction((m) => ledger.hold(m, event(1)));
      const stored = await rows();
      assert.deepEqual(await subjects(rows), ['group:1']);
      assert.equal(stored[5].prev_hash, stored[4].hash);
      const result = await ledger.verify();
      assert.equal(result.ok, false);
      assert.equal(result.firstBreak?.seq, 5);
    });
  });

  describe('verify', () => {
    it('is ok for an untouched chain of 5 entries, head = the last hash', async () => {
      const { ledger, rows } = await seeded('ok');
      const result = await ledger.verify();
      assert.equal(result.ok, true);
      assert.equal(result.entries, 5);
      assert.equal(result.head, (await rows())[4].hash);
      assert.equal(result.firstBreak, undefined);
    });

    it('is ok and empty for an empty ledger', async () => {
      const dataSource = new DataSource(dataSourceOptions({ databasePath: join(dir, 'empty.sqlite') }, SCHEMA));
      opened.push(dataSource);
      await dataSource.initialize();
      const result = await ledgerOver(dataSource, new SteppingClock(0)).verify();
      assert.equal(result.ok, true);
      assert.equal(result.entries, 0);
      assert.equal(result.head, ZEROS);
    });

    it('names entry 3 when its stored payload was altered', async () => {
      const { dataSource, ledger } = await seeded('payload-3');
      await dataSource.query(`UPDATE ledger_entry SET payload = ? WHERE seq = 3`, ['{"deviceType":"ESP32","id":1,"version":"6.6.6"}']);
      const result = await ledger.verify();
      assert.equal(result.ok, false);
      assert.equal(result.firstBreak?.seq, 3);
      assert.equal(result.entries, 2, 'entries checked before the break');
    });

    for (const [column, value] of [
      ['type', "'firmware.deleted'"],
      ['subject', "'firmware:2'"],
      ['tenant_id', '9'],
      ['created_at', 'created_at + 1'],
      ['hash', "'" + 'a'.repeat(64) + "'"],
      ['prev_hash', "'" + 'b'.repeat(64) + "'"],
    ] as const) {
      it(`names entry 3 when its ${column} was altered`, async () => {
        const { dataSource, ledger } = await seeded(`column-${column}`);
        await dataSource.query(`UPDATE ledger_entry SET ${column} = ${value} WHERE seq = 3`);
        const result = await ledger.verify();
        assert.equal(result.ok, false);
        assert.equal(result.firstBreak?.seq, 3);
      });
    }

    const removals = [
      {
        name: 'a deleted entry, at the entry after the gap',
        file: 'delete-3',
        tamper: 'DELETE FROM ledger_entry WHERE seq = 3',
        breaksAt: 4,
        reason: /3/,
      },
      { name: 'a deleted first entry', file: 'delete-1', tamper: 'DELETE FROM ledger_entry WHERE seq = 1', breaksAt: 2 },
      { name: 'a renumbered entry', file: 'renumber', tamper: 'UPDATE ledger_entry SET seq = 9 WHERE seq = 5', breaksAt: 9 },
    ];
    for (const { name, file, tamper, breaksAt, reason } of removals) {
      it(`detects ${name}`, async () => {
        const { dataSource, ledger } = await seeded(file);
        await dataSource.query(tamper);
        const result = await ledger.verify();
        assert.equal(result.ok, false);
        assert.equal(result.firstBreak?.seq, breaksAt);
        if (reason) assert.match(result.firstBreak.reason, reason);
      });
    }

    it('detects an altered entry whose hash was recomputed, at the next entry (4)', async () => {
      const { dataSource, ledger, rows } = await seeded('rehash-3');
      const third = (await rows())[2];
      const payload = '{"deviceType":"ESP32","id":1,"version":"6.6.6"}';
      const hash = specHash(third.prev_hash, { ...third, payload });
      await dataSource.query('UPDATE ledger_entry SET payload = ?, hash = ? WHERE seq = 3', [payload, hash]);
      const result = await ledger.verify();
      assert.equal(result.ok, false);
      assert.equal(result.firstBreak?.seq, 4);
      assert.equal(result.entries, 3);
    });

    it('is ok again once the altered value is restored', async () => {
      const { dataSource, ledger, rows } = await seeded('restore');
      const original = (await rows())[2].payload;
      await dataSource.query('UPDATE ledger_entry SET payload = ? WHERE seq = 3', ['{}']);
      assert.equal((await ledger.verify()).ok, false);
      await dataSource.query('UPDATE ledger_entry SET payload = ? WHERE seq = 3', [original]);
      assert.equal((await ledger.verify()).ok, true);
    });
  });

  describe('current', () => {
    it('returns the newest type and state of a subject in the tenant', async () => {
      const { ledger } = await seeded('current');
      assert.deepEqual(await ledger.current(1, 'device:AC:67:B2:01:02:03'), {
        type: 'device.updated',
        state: { mac: 'AC:67:B2:01:02:03', name: 'one', firmwareVersion: '1.1.0' },
      });
    });

    it("keeps tenants apart: another tenant's entry for the same subject is not returned", async () => {
      const { ledger } = await seeded('current-tenants');
      assert.deepEqual(await ledger.current(2, 'device:AC:67:B2:01:02:03'), {
        type: 'device.registered',
        state: { mac: 'AC:67:B2:01:02:03', name: 'other tenant', firmwareVersion: '9.9.9' },
      });
      assert.equal(await ledger.current(2, 'firmware:1'), null);
    });

    it('follows a later append', async () => {
      const { ledger, unitOfWork } = await seeded('current-later');
      await unitOfWork.transaction((m) =>
        ledger.append(m, { tenantId: 1, type: 'device.deleted', subject: 'device:AC:67:B2:01:02:03', state: { mac: 'AC:67:B2:01:02:03' } }),
      );
      assert.deepEqual(await ledger.current(1, 'device:AC:67:B2:01:02:03'), {
        type: 'device.deleted',
        state: { mac: 'AC:67:B2:01:02:03' },
      });
      assert.equal((await ledger.verify()).entries, 6);
    });

    it('returns null for a subject with no entries', async () => {
      const { ledger } = await seeded('current-none');
      assert.equal(await ledger.current(1, 'device:00:00:00:00:00:00'), null);
    });
  });
});
