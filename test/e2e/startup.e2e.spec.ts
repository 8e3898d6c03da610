import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, freePort, TEST_ENGINE } from '#test/support/harness.js';
import { MIGRATIONS } from '#src/app/schema.js';
import { loopbackUrls, spawnServer } from '#test/support/server-process.js';

async function waitForListener(url: string, deadlineMs: number): Promise<void> {
  for (;;) {
    try {
      await fetch(url);
      return;
    } catch (error) {
      if (Date.now() > deadlineMs) throw error;
      await new Promise((wake) => setTimeout(wake, 50));
    }
  }
}

describe('server process', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'firmledger-start-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  for (const [variable, value] of [
    ['LOGIN_RATE_LIMIT', 'ten'],
    ['VC_URL', 'ftp://example:21'],
    ['AUTH_MAX_SKEW_SECONDS', '-5'],
    ['JWT_SECRET', 'too-short'],
    ['DATABASE_URL', 'mysql://root@127.0.0.1/firmledger'],
    ['REDIS_URL', '127.0.0.1:6379'],
  ] as const) {
    it(`refuses to start with ${variable}=${value}, naming the variable (exit 2)`, async () => {
      const { child, output } = spawnServer({ [variable]: value, DATA_DIR: join(dir, 'bad') }, dir);
      const [code] = (await once(child, 'exit')) as [number | null];
      assert.equal(code, 2, output());
      assert.match(output(), new RegExp(variable));
      assert.doesNotMatch(output(), /\n\s+at /, 'no stack trace for a configuration error');
    });
  }

  it('refuses to start when a TLS certificate file cannot be read, naming its variable (exit 2)', async () => {
    const { child, output } = spawnServer(
      {
        IPFS_URL: 'https://127.0.0.1:1',
        IPFS_TLS_CERT_FILE: join(dir, 'absent.crt'),
        IPFS_TLS_KEY_FILE: join(dir, 'absent.key'),
        DATA_DIR: join(dir, 'no-cert'),
      },
      dir,
    );
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 2, output());
    assert.match(output(), /invalid configuration: IPFS_TLS_CERT_FILE: cannot read .*absent\.crt/);
  });

  it('refuses to start when Redis at REDIS_URL cannot be reached, without repeating the URL', async () => {
    const { child, output } = spawnServer({ REDIS_URL: 'redis://:s3cret-pw@127.0.0.1:1/0', DATA_DIR: join(dir, 'no-redis') }, dir);
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.notEqual(code, 0);
    assert.match(output(), /Redis at REDIS_URL is not reachable/);
    assert.doesNotMatch(output(), /s3cret-pw/);
  });

  it(`starts on ${TEST_ENGINE === 'postgres' ? 'PostgreSQL (DATABASE_URL)' : 'SQLite under DATA_DIR'} with migrations, serves, and exits 0 on SIGTERM`, async () => {
    const [auth, vc, bc, op] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const database = await createTestDatabase();
    const { child, output } = spawnServer(
      {
        ...loopbackUrls({
          auth,
          vc,
          bc,
          operator: op,
          ipfs: await freePort(),
          tools: await freePort(),
          ddi: await freePort(),
          mender: await freePort(),
        }),
        ...database.env,
      },
      dir,
    );
    try {
      await waitForListener(`http://127.0.0.1:${bc}/`, Date.now() + 60_000);
      const answer = await fetch(`http://127.0.0.1:${vc}/api/device/`);
      assert.equal(answer.status, 401);
      assert.deepEqual(await answer.json(), { message: 'JWT is not valid' });
      const migrations = await database.query<{ name: string }>('SELECT name FROM migrations');
      assert.deepEqual(
        migrations.map((m) => m.name),
        MIGRATIONS.map((m) => m.name),
        'every migration ran at start',
      );
      if (database.engine === 'sqlite') {
        assert.ok(existsSync(join(database.dataDir, 'firmledger.sqlite-wal')), 'SQLite runs in WAL mode');
      } else {
        assert.ok(!existsSync(join(database.dataDir, 'firmledger.sqlite')), 'no SQLite file with DATABASE_URL');
      }
      assert.ok(existsSync(join(database.dataDir, 'jwt-secret')), 'the JWT secret is kept in DATA_DIR');
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      assert.equal(code, 0, output());
      await assert.rejects(fetch(`http://127.0.0.1:${auth}/auth/login`), 'listeners are closed after SIGTERM');
    } finally {
      // A failed assertion must not leave the server running (the spec would never end).
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await database.drop();
    }
  });
});
