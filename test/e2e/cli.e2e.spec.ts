import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Command } from 'commander';
import { buildProgram } from '#src/cli/program.js';
import type { FirmwareResponse } from '#src/operator/dto/firmware.dto.js';
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

/** The field names of a response schema of the operator REST API (openapi/operator.json). */
function restFields(schema: string): string[] {
  const document = JSON.parse(readFileSync(join(ROOT, 'openapi', 'operator.json'), 'utf8')) as {
    components: { schemas: Record<string, { properties: Record<string, unknown> }> };
  };
  return Object.keys(document.components.schemas[schema].properties).sort();
}

/**
 * Display columns a terminal gives the text, written here without the CLI's library: two for the
 * CJK ideographs and the emoji these specs use (all at U+1100 or above), one for ASCII.
 */
function displayWidth(text: string): number {
  return [...text].reduce((width, char) => width + (char.codePointAt(0)! >= 0x1100 ? 2 : 1), 0);
}

/** Every command of the tree with its path (`[]` is firmledger itself). */
function allCommands(command: Command, path: string[] = []): { path: string[]; command: Command }[] {
  return [{ path, command }, ...command.commands.flatMap((sub) => allCommands(sub, [...path, sub.name()]))];
}

describe('firmledger CLI', () => {
  let database: TestDatabase;
  let firmwareFile: string;

  /** Runs the built CLI as a real process on the temp data directory; never throws on exit codes. */
  function cli(...args: string[]): Promise<Outcome> {
    return cliOn(database, ...args);
  }

  /** Runs the built CLI as a real process on the given database; never throws on exit codes. */
  async function cliOn(on: TestDatabase, ...args: string[]): Promise<Outcome> {
    const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'], HOME: process.env['HOME'], ...on.env };
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

  /** The command line that makes a device key for acme's ESP32 devices. */
  const CREATE_ESP32_KEY = ['device-key', 'create', '--tenant', 'acme', '--type', 'ESP32'];

  let customerKey: string;

  before(async () => {
    database = await createTestDatabase();
    firmwareFile = join(database.dataDir, 'hello.bin');
    await writeFile(firmwareFile, HELLO);
  });

  after(async () => {
    await database.drop();
  });

  /** How the CLI names a database: the SQLite file, or the PostgreSQL URL (without password). */
  const databaseName = (on: TestDatabase): string =>
    on.env.DATABASE_URL ? new URL(on.env.DATABASE_URL).href.replace(/:[^:@/]*@/, '@') : join(on.dataDir, 'firmledger.sqlite');

  it('init creates the database and says which one', async () => {
    const outcome = await cli('init');
    assert.equal(outcome.code, 0, outcome.stderr);
    assert.equal(outcome.stdout, `created the database ${databaseName(database)}\n`);
  });

  it('tenant create shows the customer key once', async () => {
    const tenant = await json<{ id: number; name: string; customer_key: string }>('tenant', 'create', 'acme', '--json');
    assert.equal(tenant.name, 'acme');
    assert.equal(typeof tenant.id, 'number');
    assert.equal(typeof tenant.customer_key, 'string');
    assert.ok(tenant.customer_key.length >= 16, `customer key too short: ${tenant.customer_key}`);
    customerKey = tenant.customer_key;
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
    const key = await json<{ key: string; device_type: string; revoked: boolean }>(...CREATE_ESP32_KEY, '--json');
    assert.equal(key.device_type, 'ESP32');
    assert.equal(key.revoked, false);
    assert.equal(typeof key.key, 'string');
    assert.ok(key.key.length > 0);
    assert.notEqual(key.key, customerKey);
  });

  it('device-key create --single-device makes a key for one device (strict once-only logins)', async () => {
    const key = await json<{ key: string; singleDevice?: boolean; single_device?: boolean }>(
      ...CREATE_ESP32_KEY,
      '--single-device',
      '--json',
    );
    assert.equal(key.singleDevice ?? key.single_device, true);
    assert.match(key.key, /^[A-Za-z0-9]{22}$/);
    const listed = await cli('device-key', 'list', '--tenant', 'acme');
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`${key.key}\\s+ESP32\\s+true`), listed.stdout);
  });

  it('firmware publish computes md5, sha256 and the IPFS CIDv0', async () => {
    const firmware = await json<FirmwareResponse>(
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
    assert.equal(firmware.device_type, 'ESP32');
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
    const rollout = await json<{ id: number; name: string; status: string; firmware_id: number; priority: number; start_date: string }>(
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
    assert.equal(rollout.firmware_id, 1);
    assert.equal(rollout.priority, 1);
    assert.equal(rollout.start_date, '2020-01-01 00:00:00');
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
    const rollouts = await json<{ id: number; name: string; status: string; targeted: number; confirmed: number; unsettled: number }[]>(
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
    assert.equal(r1.confirmed, 0);
    assert.equal(r1.unsettled, r1.targeted - r1.confirmed);
  });

  it('rollout show gives one rollout with its progress: the two members never registered, so nothing is targeted', async () => {
    const rollout = await json<{
      id: number;
      status: string;
      targeted: number;
      confirmed: number;
      unsettled: number;
      not_registered: number;
      last_activity_at: string | null;
    }>('rollout', 'show', '1', '--tenant', 'acme', '--json');
    assert.deepEqual(
      {
        id: rollout.id,
        status: rollout.status,
        targeted: rollout.targeted,
        confirmed: rollout.confirmed,
        unsettled: rollout.unsettled,
        not_registered: rollout.not_registered,
      },
      { id: 1, status: 'active', targeted: 0, confirmed: 0, unsettled: 0, not_registered: 2 },
    );
    assert.equal(rollout.last_activity_at, null);
    const text = await cli('rollout', 'show', '1', '--tenant', 'acme');
    assert.match(text.stdout, /^not targeted: not applicable 0 \(other device type\), not registered 2$/m);
  });

  it('group remove takes a member out of the group, and the rollout counts one fewer', async () => {
    const group = await json<{ members: number }>('group', 'remove', 'beta', '02-00-00-00-00-02', '--tenant', 'acme', '--json');
    assert.equal(group.members, 1);
    const rollout = await json<{ not_registered: number }>('rollout', 'show', '1', '--tenant', 'acme', '--json');
    assert.equal(rollout.not_registered, 1);
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
      const outcome = await cli('group', 'add', 'beta', 'not/a/mac', '--tenant', 'acme');
      assert.notEqual(outcome.code, 0);
      assert.match(outcome.stderr, /not\/a\/mac/);
    });

    it('a bad mac among good ones adds none of them', async () => {
      const outcome = await cli('group', 'add', 'beta', '02:00:00:00:00:03', 'AC:67 B2:01:02:03', '--tenant', 'acme');
      assert.notEqual(outcome.code, 0);
      assert.match(outcome.stderr, /AC:67 B2:01:02:03/);
      const groups = await json<{ name: string; members: number }[]>('group', 'list', '--tenant', 'acme', '--json');
      assert.equal(groups.find((g) => g.name === 'beta')?.members, 2);
    });
  });

  describe('a CLI a person enjoys', () => {
    it('--version and -V print the version of package.json', async () => {
      const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
      for (const flag of ['--version', '-V']) {
        const outcome = await cli(flag);
        assert.deepEqual({ code: outcome.code, stdout: outcome.stdout }, { code: 0, stdout: `${version}\n` });
      }
      // A command's own --version stays its own (firmware publish above passes one).
    });

    it('every command and subcommand has a description and an example of itself in its help', () => {
      const commands = allCommands(buildProgram());
      assert.ok(commands.length >= 30, `only ${commands.length} commands found`);
      for (const { path, command } of commands) {
        const name = ['firmledger', ...path].join(' ');
        assert.ok(command.description().length > 10, `${name} has no description`);
        let help = '';
        command.configureOutput({ writeOut: (text) => (help += text) });
        command.outputHelp();
        assert.match(help, /\nExamples?:\n {2}\$ /, `${name} --help shows no example`);
        const examples = help.slice(help.search(/\nExamples?:\n/));
        assert.ok(examples.includes(`${name}${path.length ? ' ' : ''}`) || examples.includes(`${name}\n`), `${name}: no example runs it`);
      }
    });

    it('--help of a subcommand prints its example, as a process', async () => {
      const outcome = await cli('rollout', 'start', '--help');
      assert.equal(outcome.code, 0, outcome.stderr);
      assert.match(outcome.stdout, /^start a draft rollout/m);
      assert.match(outcome.stdout, /\nExample:\n {2}\$ firmledger rollout start 1 --tenant acme\n/);
    });

    it('--json prints the REST API’s field names (snake_case), the same as openapi/operator.json', async () => {
      const created = await json<Record<string, unknown>>('tenant', 'create', 'json-fields', '--json');
      assert.deepEqual(Object.keys(created).sort(), restFields('TenantWithKeyResponse'));
      const checks: [string[], string][] = [
        [['tenant', 'list'], 'TenantResponse'],
        [['device-key', 'list', '--tenant', 'acme'], 'DeviceKeyResponse'],
        [['firmware', 'list', '--tenant', 'acme'], 'FirmwareResponse'],
        [['group', 'list', '--tenant', 'acme'], 'GroupResponse'],
        [['rollout', 'list', '--tenant', 'acme'], 'OperatorRolloutResponse'],
      ];
      for (const [args, schema] of checks) {
        const rows = await json<Record<string, unknown>[]>(...args, '--json');
        assert.ok(rows.length > 0, args.join(' '));
        for (const row of rows) assert.deepEqual(Object.keys(row).sort(), restFields(schema), args.join(' '));
      }
      const rollout = await json<Record<string, unknown>>('rollout', 'show', '1', '--tenant', 'acme', '--json');
      assert.deepEqual(Object.keys(rollout).sort(), restFields('OperatorRolloutResponse'));
      const verified = await json<Record<string, unknown>>('ledger', 'verify', '--json');
      assert.deepEqual(Object.keys(verified).sort(), restFields('LedgerVerifyResponse'));
      const tokens = await json<Record<string, unknown>>('operator-token', 'create', '--name', 'json-fields', '--json');
      assert.deepEqual(Object.keys(tokens).sort(), ['created_at', 'hint', 'id', 'name', 'revoked', 'role', 'token']);
    });

    it('under --json an error is {"message": ...} on stderr, nothing on stdout, exit code 1', async () => {
      const cases: [string[], string | RegExp][] = [
        [['rollout', 'show', '99', '--tenant', 'acme'], 'Rollout 99 not found'],
        [
          ['firmware', 'publish', join(database.dataDir, 'nosuch.bin'), '--tenant', 'acme', '--version', '9', '--type', 'ESP32'],
          /^no such file: /,
        ],
        [['rollout', 'show', '1'], /required option '--tenant <tenant>' not specified/],
        [['nosuch'], /unknown command 'nosuch'/],
      ];
      for (const [args, message] of cases) {
        const outcome = await cli(...args, '--json');
        assert.equal(outcome.code, 1, `${args.join(' ')}: ${outcome.stderr}`);
        assert.equal(outcome.stdout, '', args.join(' '));
        const body = JSON.parse(outcome.stderr) as { message: string };
        assert.deepEqual(Object.keys(body), ['message'], outcome.stderr);
        if (typeof message === 'string') assert.equal(body.message, message);
        else assert.match(body.message, message);
      }
    });

    it('a successful --json run writes only its JSON: no line about the database on stderr', async () => {
      const outcome = await cli('tenant', 'list', '--json');
      assert.deepEqual({ code: outcome.code, stderr: outcome.stderr }, { code: 0, stderr: '' });
      JSON.parse(outcome.stdout);
    });

    it('says on stderr which database it opened', async () => {
      const outcome = await cli('tenant', 'list');
      assert.equal(outcome.code, 0, outcome.stderr);
      assert.equal(outcome.stderr, `firmledger: using the database ${databaseName(database)}\n`);
    });

    it('not-found errors name what was not found', async () => {
      const cases: [string[], RegExp][] = [
        [
          ['rollout', 'create', '--tenant', 'acme', '--name', 'x', '--firmware', '99', '--group', 'beta', '--start', '2020-01-01 00:00:00'],
          /^firmledger: Firmware 99 not found$/m,
        ],
        [['rollout', 'pause', '7', '--tenant', 'acme'], /^firmledger: Rollout 7 not found$/m],
        [['rollout', 'show', '7', '--tenant', 'acme'], /^firmledger: Rollout 7 not found$/m],
        [['group', 'add', 'x', '02:00:00:00:00:09', '--tenant', 'acme'], /^firmledger: Group "x" not found$/m],
        [['firmware', 'list', '--tenant', 'nosuch'], /^firmledger: Tenant "nosuch" not found$/m],
        [['device-key', 'revoke', '99', '--tenant', 'acme'], /^firmledger: Device key "99" not found$/m],
      ];
      for (const [args, message] of cases) {
        const outcome = await cli(...args);
        assert.equal(outcome.code, 1, args.join(' '));
        assert.match(outcome.stderr, message);
      }
    });

    it('tables line up in display columns with CJK and emoji names', async () => {
      for (const name of ['東京電力', '🚀 rockets', 'a']) await json('tenant', 'create', name, '--json');
      const outcome = await cli('tenant', 'list');
      assert.equal(outcome.code, 0, outcome.stderr);
      const [header, ...rows] = outcome.stdout.trimEnd().split('\n');
      const column = displayWidth(header.slice(0, header.indexOf('created_at')));
      const names = ['東京電力', '🚀 rockets', 'a', 'acme'];
      for (const name of names)
        assert.ok(
          rows.some((row) => row.includes(` ${name} `)),
          `${name} missing:\n${outcome.stdout}`,
        );
      for (const row of rows) {
        const date = row.search(/\d{4}-\d\d-\d\dT/);
        assert.equal(displayWidth(row.slice(0, date)), column, `created_at does not line up:\n${outcome.stdout}`);
      }
    });

    it('firmware publish shows its progress on stderr (not with --json)', async () => {
      const big = join(database.dataDir, 'big.bin');
      await writeFile(big, randomBytes(3 * 1024 * 1024));
      const outcome = await cli('firmware', 'publish', big, '--tenant', 'acme', '--version', '3.0.0', '--type', 'ESP32');
      assert.equal(outcome.code, 0, outcome.stderr);
      assert.match(outcome.stderr, /\rpublishing big\.bin: 0\.0 of 3\.0 MiB \(0%\)/);
      assert.match(outcome.stderr, /\rpublishing big\.bin: 3\.0 of 3\.0 MiB \(100%\)\s*\n/);
      assert.doesNotMatch(outcome.stdout, /publishing/);
      assert.match(outcome.stdout, /^firmware \d+: 3\.0\.0 for ESP32, 3145728 bytes, file big\.bin$/m);
      const quiet = await cli('firmware', 'publish', big, '--tenant', 'acme', '--version', '3.0.1', '--type', 'ESP32', '--json');
      assert.deepEqual({ code: quiet.code, stderr: quiet.stderr }, { code: 0, stderr: '' });
    });

    it('refuses to run on a database that does not exist, naming it, and creates none; init creates it', async () => {
      const fresh = await createTestDatabase();
      try {
        const outcome = await cliOn(fresh, 'tenant', 'list');
        assert.equal(outcome.code, 1);
        assert.equal(outcome.stdout, '');
        assert.match(outcome.stderr, /^firmledger: no database at (\S+): .*"firmledger init"\n$/);
        assert.ok(outcome.stderr.includes(`no database at ${databaseName(fresh)}:`), outcome.stderr);
        const asJson = await cliOn(fresh, 'tenant', 'create', 'acme', '--json');
        assert.equal(asJson.code, 1);
        assert.match((JSON.parse(asJson.stderr) as { message: string }).message, /^no database at /);
        if (fresh.engine === 'sqlite') assert.equal(existsSync(join(fresh.dataDir, 'firmledger.sqlite')), false);
        else {
          const [{ found }] = await fresh.query<{ found: boolean }>(`SELECT to_regclass('migrations') IS NOT NULL AS found`);
          assert.equal(found, false, 'the schema was created');
        }
        const init = await cliOn(fresh, 'init', '--json');
        assert.equal(init.code, 0, init.stderr);
        assert.deepEqual(JSON.parse(init.stdout), { database: databaseName(fresh), created: true });
        const again = await cliOn(fresh, 'init');
        assert.equal(again.code, 0, again.stderr);
        assert.match(again.stdout, /already exists/);
        assert.equal((await cliOn(fresh, 'tenant', 'list')).stdout, '(none)\n');
      } finally {
        await fresh.drop();
      }
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
      const result = JSON.parse(asJson.stdout) as { ok: boolean; first_break?: { seq: number } };
      assert.equal(result.ok, false);
      assert.equal(result.first_break?.seq, 2);
    });
  });
});
