import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FirmwareView } from '#src/firmware/firmware.service.js';
import { createTestDatabase, type TestDatabase } from '#test/support/harness.js';

const run = promisify(execFile);

/** The repository root (this file runs from `dist/test/e2e`): the CLI runs from there (`node bin/firmledger.js`). */
const ROOT = join(import.meta.dirname, '..', '..', '..');

/** CIDv0 that `ipfs add` gives the 12 bytes "hello world\n" (well-known IPFS example). */
const HELLO_CID = 'QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o';
const HELLO = Buffer.from('hello world\n', 'utf8');

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

describe('firmledger CLI', () => {
  let database: TestDatabase;
  let firmwareFile: string;

  /** Runs the built CLI as a real process on the temp data directory; never throws on exit codes. */
  async function cli(...args: string[]): Promise<Outcome> {
    const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'], HOME: process.env['HOME'], ...database.env };
    try {
      const { stdout, stderr } = await run(process.execPath, ['bin/firmledger.js', ...args], { cwd: ROOT, env, timeout: 60_000 });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code?: unknown; stdout?: string; stderr?: string; killed?: boolean };
      if (typeof failed.code !== 'number') throw error;
      return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
    }
  }

  /** Runs a command that must succeed and parses its `--json` output. */
  async function json<T>(...args: string[]): Promise<T> {
    const outcome = await cli(...args);
    assert.equal(outcome.code, 0, `${args.join(' ')} failed: ${outcome.stderr}${outcome.stdout}`);
    return JSON.parse(outcome.stdout) as T;
  }

  let customerKey: string;

  before(async () => {
    database = await createTestDatabase();
    firmwareFile = join(database.dataDir, 'hello.bin');
    await writeFile(firmwareFile, HELLO);
  });

  after(async () => {
    await database.drop();
  });

  it('tenant create shows the customer key once', async () => {
    const tenant = await json<{ id: number; name: string; customerKey: string }>('tenant', 'create', 'acme', '--json');
    assert.equal(tenant.name, 'acme');
    assert.equal(typeof tenant.id, 'number');
    assert.equal(typeof tenant.customerKey, 'string');
    assert.ok(tenant.customerKey.length >= 16, `customer key too short: ${tenant.customerKey}`);
    customerKey = tenant.customerKey;
  });

  it('tenant list does not show the customer key', async () => {
    const outcome = await cli('tenant', 'list', '--json');
    assert.equal(outcome.code, 0, outcome.stderr);
    const tenants = JSON.parse(outcome.stdout) as { name: string }[];
    assert.deepEqual(
      tenants.map((t) => t.name),
      ['acme'],
    );
    assert.ok(!outcome.stdout.includes(customerKey), 'customer key leaked in tenant list');
    assert.doesNotMatch(outcome.stdout, /customer/i);
  });

  it('device-key create makes an ESP32 key', async () => {
    const key = await json<{ key: string; deviceType: string; revoked: boolean }>(
      'device-key',
      'create',
      '--tenant',
      'acme',
      '--type',
      'ESP32',
      '--json',
    );
    assert.equal(key.deviceType, 'ESP32');
    assert.equal(key.revoked, false);
    assert.equal(typeof key.key, 'string');
    assert.ok(key.key.length > 0);
    assert.notEqual(key.key, customerKey);
  });

  it('firmware publish computes md5, sha256 and the IPFS CIDv0', async () => {
    const firmware = await json<FirmwareView>(
      'firmware',
      'publish',
      firmwareFile,
      '--tenant',
      'acme',
      '--version',
      '1.0.0',
      '--type',
      'ESP32',
      '--json',
    );
    assert.equal(firmware.id, 1);
    assert.equal(firmware.version, '1.0.0');
    assert.equal(firmware.deviceType, 'ESP32');
    assert.equal(firmware.size, 12);
    assert.equal(firmware.md5, createHash('md5').update(HELLO).digest('hex'));
    assert.equal(firmware.sha256, createHash('sha256').update(HELLO).digest('hex'));
    assert.equal(firmware.cid, HELLO_CID);
  });

  it('group create beta', async () => {
    const outcome = await cli('group', 'create', 'beta', '--tenant', 'acme');
    assert.equal(outcome.code, 0, outcome.stderr);
    assert.match(outcome.stdout, /beta/);
  });

  it('group add takes macs in any notation', async () => {
    const group = await json<{ name: string; members: number }>(
      'group',
      'add',
      'beta',
      '02:00:00:00:00:01',
      '02-00-00-00-00-02',
      '--tenant',
      'acme',
      '--json',
    );
    assert.equal(group.name, 'beta');
    assert.equal(group.members, 2);
  });

  it('rollout create plans a draft', async () => {
    const rollout = await json<{ id: number; name: string; status: string; firmwareId: number; priority: number; startDate: string }>(
      'rollout',
      'create',
      '--tenant',
      'acme',
      '--name',
      'r1',
      '--firmware',
      '1',
      '--group',
      'beta',
      '--priority',
      '1',
      '--start',
      '2020-01-01 00:00:00',
      '--json',
    );
    assert.equal(rollout.id, 1);
    assert.equal(rollout.name, 'r1');
    assert.equal(rollout.status, 'draft');
    assert.equal(rollout.firmwareId, 1);
    assert.equal(rollout.priority, 1);
    assert.equal(rollout.startDate, '2020-01-01 00:00:00');
  });

  it('rollout start makes it active', async () => {
    const rollout = await json<{ id: number; status: string }>('rollout', 'start', '1', '--tenant', 'acme', '--json');
    assert.equal(rollout.id, 1);
    assert.equal(rollout.status, 'active');
  });

  it('rollout start again is refused (active cannot start)', async () => {
    const outcome = await cli('rollout', 'start', '1', '--tenant', 'acme', '--json');
    assert.notEqual(outcome.code, 0);
    assert.match(outcome.stderr, /active/);
  });

  it('rollout list shows the active rollout and its progress', async () => {
    const rollouts = await json<{ id: number; name: string; status: string; targeted: number; updated: number; pending: number }[]>(
      'rollout',
      'list',
      '--tenant',
      'acme',
      '--json',
    );
    assert.equal(rollouts.length, 1);
    const [r1] = rollouts;
    assert.equal(r1.id, 1);
    assert.equal(r1.name, 'r1');
    assert.equal(r1.status, 'active');
    assert.equal(r1.updated, 0);
    assert.equal(r1.pending, r1.targeted - r1.updated);
  });

  it('rollout show gives one rollout with its progress', async () => {
    const rollout = await json<{
      id: number;
      status: string;
      targeted: number;
      updated: number;
      pending: number;
      lastActivity: string | null;
    }>('rollout', 'show', '1', '--tenant', 'acme', '--json');
    assert.deepEqual(
      { id: rollout.id, status: rollout.status, targeted: rollout.targeted, updated: rollout.updated, pending: rollout.pending },
      { id: 1, status: 'active', targeted: 2, updated: 0, pending: 2 },
    );
    assert.equal(rollout.lastActivity, null);
  });

  it('group remove takes a device out of the group, and the rollout targets one fewer', async () => {
    const group = await json<{ members: number }>('group', 'remove', 'beta', '02-00-00-00-00-02', '--tenant', 'acme', '--json');
    assert.equal(group.members, 1);
    const rollout = await json<{ targeted: number }>('rollout', 'show', '1', '--tenant', 'acme', '--json');
    assert.equal(rollout.targeted, 1);
    await json('group', 'add', 'beta', '02:00:00:00:00:02', '--tenant', 'acme', '--json');
  });

  describe('bad input', () => {
    it('rollout create with --start "tomorrow" exits non-zero, naming the start date', async () => {
      const outcome = await cli(
        'rollout',
        'create',
        '--tenant',
        'acme',
        '--name',
        'r2',
        '--firmware',
        '1',
        '--group',
        'beta',
        '--start',
        'tomorrow',
        '--json',
      );
      assert.notEqual(outcome.code, 0);
      assert.match(outcome.stderr + outcome.stdout, /start date/i);
      const rollouts = await json<unknown[]>('rollout', 'list', '--tenant', 'acme', '--json');
      assert.equal(rollouts.length, 1, 'no rollout was created');
    });

    it('an unknown tenant exits non-zero with a clear message', async () => {
      const outcome = await cli('group', 'list', '--tenant', 'nosuchtenant', '--json');
      assert.notEqual(outcome.code, 0);
      assert.match(outcome.stderr, /nosuchtenant/);
      assert.match(outcome.stderr, /not found|unknown|no such/i);
      assert.doesNotMatch(outcome.stderr, /unexpected error|\n\s+at /);
    });

    it('group add with a bad mac exits non-zero naming it', async () => {
      const outcome = await cli('group', 'add', 'beta', 'not-a-mac', '--tenant', 'acme');
      assert.notEqual(outcome.code, 0);
      assert.match(outcome.stderr, /not-a-mac/);
    });

    it('a bad mac among good ones adds none of them', async () => {
      const outcome = await cli('group', 'add', 'beta', '02:00:00:00:00:03', 'AC:67-B2:01:02:03', '--tenant', 'acme');
      assert.notEqual(outcome.code, 0);
      assert.match(outcome.stderr, /AC:67-B2:01:02:03/);
      const groups = await json<{ name: string; members: number }[]>('group', 'list', '--tenant', 'acme', '--json');
      assert.equal(groups.find((g) => g.name === 'beta')?.members, 2);
    });
  });

  describe('ledger verify', () => {
    it('exits 0 on the untouched ledger', async () => {
      const outcome = await cli('ledger', 'verify');
      assert.equal(outcome.code, 0, outcome.stderr + outcome.stdout);
      assert.match(outcome.stdout, /ok/i);
      const result = await json<{ ok: boolean; entries: number }>('ledger', 'verify', '--json');
      assert.equal(result.ok, true);
      assert.ok(result.entries >= 5, `expected the operations above on the ledger, got ${result.entries} entries`);
    });

    it('exits 1 naming entry 2 after its payload is altered in the database', async () => {
      assert.equal(await database.execute(`UPDATE ledger_entry SET payload = $1 WHERE seq = 2`, ['{"tampered":true}']), 1);
      const outcome = await cli('ledger', 'verify');
      assert.equal(outcome.code, 1, outcome.stderr + outcome.stdout);
      assert.match(outcome.stdout + outcome.stderr, /entry 2\b/);
      const asJson = await cli('ledger', 'verify', '--json');
      assert.equal(asJson.code, 1);
      const result = JSON.parse(asJson.stdout) as { ok: boolean; firstBreak?: { seq: number } };
      assert.equal(result.ok, false);
      assert.equal(result.firstBreak?.seq, 2);
    });
  });
});
