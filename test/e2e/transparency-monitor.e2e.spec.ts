import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ledgerHash, ledgerLeafText } from '#src/domain/ledger/ledger-hash.js';
import { LedgerService } from '#src/domain/ledger/ledger.service.js';
import { CompactTree, leafHash } from '#src/domain/ledger/merkle.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import { startTestApp, type TestApp } from '#test/support/harness.js';
import { runCli, type CliOutcome } from '#test/support/operator.js';

/** A stored ledger row as both engines return it. */
interface Row {
  seq: number | string;
  tenant_id: number | string;
  type: string;
  subject: string;
  payload: string;
  created_at: number | string;
  actor: string | null;
  prev_hash: string;
  hash: string;
}

const fieldsOf = (row: Row) => ({
  seq: Number(row.seq),
  tenantId: Number(row.tenant_id),
  type: row.type,
  subject: row.subject,
  payload: row.payload,
  createdAt: Number(row.created_at),
  actor: row.actor,
});

/**
 * A fork made by hand, as someone holding the database and the signing key would make it: entry
 * `seq`'s payload rewritten, every later entry's hash chained again, the whole Merkle tree rebuilt
 * and the signed checkpoints dropped, so the log signs the forked tree and everything verifies
 * inside it.
 */
async function forkByHand(app: TestApp, seq: number): Promise<void> {
  const rows = await app.database.query<Row>('SELECT * FROM ledger_entry ORDER BY seq');
  const tree = new CompactTree();
  const nodes: unknown[][] = [];
  let prev = '0'.repeat(64);
  for (const row of rows) {
    const fields = fieldsOf(row);
    if (fields.seq === seq) fields.payload = fields.payload.replace(/"name":"[^"]*"/, '"name":"rewritten by hand"');
    const hash = ledgerHash(prev, fields);
    if (fields.seq >= seq) {
      await app.database.execute('UPDATE ledger_entry SET payload = $1, prev_hash = $2, hash = $3 WHERE seq = $4', [
        fields.payload,
        prev,
        hash,
        fields.seq,
      ]);
    }
    for (const node of tree.push(leafHash(ledgerLeafText(prev, fields)))) nodes.push([node.level, node.index, node.hash.toString('hex')]);
    prev = hash;
  }
  await app.database.execute('DELETE FROM ledger_tree_node');
  for (let i = 0; i < nodes.length; i += 200) {
    const slice = nodes.slice(i, i + 200);
    const values = slice.map((_, j) => `($${3 * j + 1}, $${3 * j + 2}, $${3 * j + 3})`).join(', ');
    await app.database.execute(`INSERT INTO ledger_tree_node (level, idx, hash) VALUES ${values}`, slice.flat());
  }
  await app.database.execute('DELETE FROM ledger_cosignature');
  await app.database.execute('DELETE FROM ledger_checkpoint');
}

describe('ledger monitor follows a log through its tiles and names a fork', () => {
  let app: TestApp;
  let dir: string;
  let logKey: string;
  let bearer: string;

  /** Appends `count` entries through the ledger itself. */
  async function grow(count: number, tag: string): Promise<void> {
    const ledger = app.server.app.get(LedgerService);
    await app.server.app.get(UnitOfWork).transaction(async (manager) => {
      for (let i = 0; i < count; i++) {
        await ledger.append(manager, { tenantId: 1, type: 'group.created', subject: `group:${tag}-${i}`, state: { name: `${tag} ${i}` } });
      }
    });
  }
  const size = async (): Promise<number> =>
    Number((await app.database.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM ledger_entry'))[0].n);
  /** Runs the monitor on the operator's tile prefix (entry bundles readable with the operator token). */
  const monitor = (state = 'monitor.json', ...extra: string[]): Promise<CliOutcome> =>
    runCli(
      app,
      'ledger',
      'monitor',
      '--from',
      `${app.urls.operator}/ledger`,
      '--header',
      `Authorization: Bearer ${bearer}`,
      '--state',
      join(dir, state),
      '--metrics-file',
      join(dir, 'monitor.prom'),
      '--log-key',
      logKey,
      ...extra,
    );
  const metric = async (kind: string): Promise<string | undefined> =>
    new RegExp(`^firmledger_monitor_alert\\{origin="[^"]+",kind="${kind}"\\} (\\d)$`, 'm').exec(
      await readFile(join(dir, 'monitor.prom'), 'utf8'),
    )?.[1];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'firmledger-monitor-'));
    app = await startTestApp();
    await app.createTenant('monitored', 'ESP32');
    await grow(20, 'first');
    bearer = await app.createOperatorToken();
    logKey = (await runCli(app, 'ledger', 'key')).stdout.trim();
  });
  after(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('checks every entry’s text, chain link and tree on its first run and each new one after it, keeping its state', async () => {
    const n = await size();
    const first = await monitor();
    assert.equal(first.code, 0, first.stderr + first.stdout);
    assert.equal(first.stdout, `monitor: tree size ${n} extends 0 (${n} new entries); entry texts, chain links and tree checked\n`);
    assert.equal(await metric('split_view'), '0');
    assert.match(
      await readFile(join(dir, 'monitor.prom'), 'utf8'),
      new RegExp(`^firmledger_monitor_tree_size\\{origin="[^"]+"\\} ${n}$`, 'm'),
    );
    await grow(300, 'second');
    const second = await monitor();
    assert.equal(second.code, 0, second.stderr + second.stdout);
    assert.equal(
      second.stdout,
      `monitor: tree size ${n + 300} extends ${n} (300 new entries); entry texts, chain links and tree checked\n`,
    );
    assert.equal((await readFile(join(dir, 'monitor.json.leaves'))).length, (n + 300) * 32, 'a leaf hash kept per entry');
    const again = await monitor();
    assert.match(again.stdout, /unchanged/);
  });

  it('checks only the tree where entry bundles are not public (the blockchain component by default)', async () => {
    const outcome = await runCli(app, 'ledger', 'monitor', '--from', app.urls.bc, '--state', join(dir, 'public.json'), '--log-key', logKey);
    assert.equal(outcome.code, 0, outcome.stderr + outcome.stdout);
    assert.match(outcome.stdout, /; tree checked \(entry bundles not readable: chain not checked\)\n$/);
  });

  it('names an entry seen before whose text was rewritten in the database', async () => {
    const n = await size();
    const [row] = await app.database.query<Row>('SELECT * FROM ledger_entry WHERE seq = $1', [n]);
    await app.database.execute('UPDATE ledger_entry SET payload = $1 WHERE seq = $2', ['{"name":"edited"}', n]);
    try {
      const outcome = await monitor();
      assert.equal(outcome.code, 1, outcome.stdout);
      assert.equal(
        outcome.stdout,
        `monitor ALERT rewritten_entry: entry ${n}, seen before, was rewritten: its text no longer hashes to its leaf\n`,
      );
      assert.equal(await metric('rewritten_entry'), '1');
    } finally {
      await app.database.execute('UPDATE ledger_entry SET payload = $1 WHERE seq = $2', [row.payload, n]);
    }
    assert.equal((await monitor()).code, 0, 'the entry is back as it was seen');
  });

  it('names a fork made by hand: a split view at the same size, then a checkpoint that does not extend the one seen', async () => {
    const n = await size();
    await forkByHand(app, 250);
    const verify = await runCli(app, 'ledger', 'verify');
    assert.equal(verify.code, 0, `the fork is consistent in itself: ${verify.stdout}`);
    const split = await monitor();
    assert.equal(split.code, 1, split.stdout);
    assert.match(
      split.stdout,
      new RegExp(
        `^monitor ALERT split_view: the log signed two different trees of size ${n}: root \\S+ seen before, \\S+ now; entry 250 was rewritten\\n$`,
      ),
    );
    assert.equal(await metric('split_view'), '1');
    await grow(3, 'after the fork');
    const grown = await monitor();
    assert.equal(grown.code, 1, grown.stdout);
    assert.equal(
      grown.stdout,
      `monitor ALERT non_extending_checkpoint: the log's checkpoint of tree size ${n + 3} does not extend the tree of size ${n} seen before: entry 250 was rewritten\n`,
    );
    assert.equal(await metric('non_extending_checkpoint'), '1');
    const state = JSON.parse(await readFile(join(dir, 'monitor.json'), 'utf8')) as { size: number };
    assert.equal(state.size, n, 'the monitor keeps the history it verified');
  });
});
