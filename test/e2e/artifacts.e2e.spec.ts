import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase, freePort, type TestDatabase } from '#test/support/harness.js';
import { waitForPort } from '#test/support/free-port.js';
import { loopbackUrls, ROOT, spawnServer } from '#test/support/server-process.js';

const run = promisify(execFile);
/** This host's name as the server writes it in a temporary file's name. */
const HOST = hostname().replace(/[^A-Za-z0-9.]/g, '_');

/** A firmware upload cut off by `kill -9` leaves nothing behind once the server starts again. */
describe('artifacts: partial uploads are removed at start', () => {
  let database: TestDatabase;
  let server: ChildProcess | undefined;
  let output = (): string => '';
  const ports = { auth: 0, vc: 0, bc: 0, operator: 0, ddi: 0, mender: 0 };
  const artifacts = () => join(database.dataDir, 'artifacts');
  const incoming = async () => (await readdir(artifacts())).filter((name) => name.startsWith('.incoming-')).sort();

  async function cli<T>(...args: string[]): Promise<T> {
    const { stdout } = await run(process.execPath, ['bin/firmledger.js', ...args, '--json'], {
      cwd: ROOT,
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], ...database.env, LOG_LEVEL: 'error' },
      timeout: 60_000,
    });
    return JSON.parse(stdout) as T;
  }

  async function startServer(): Promise<void> {
    const started = spawnServer({ ...loopbackUrls(ports), LOG_LEVEL: 'log', ...database.env });
    server = started.child;
    output = started.output;
    await waitForPort(ports.operator, output);
  }

  before(async () => {
    database = await createTestDatabase();
    for (const key of Object.keys(ports) as (keyof typeof ports)[]) ports[key] = await freePort();
  });
  after(async () => {
    if (server && server.exitCode === null) server.kill('SIGKILL');
    await database.drop();
  });

  it('removes what a killed upload left, and old leftovers, but not a live process’s upload', async () => {
    await cli('init');
    const token = (await cli<{ token: string }>('operator-token', 'create', '--name', 'artifacts')).token;
    await cli('tenant', 'create', 'acme');
    await startServer();

    // A chunked upload that sends 64 KiB, then stalls with its temporary file open.
    const upload = httpRequest(`http://127.0.0.1:${ports.operator}/tenants/acme/firmware?version=1.0.0&device_type=ESP32`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/octet-stream', 'Transfer-Encoding': 'chunked' },
    });
    upload.on('error', () => undefined); // the server is killed under it
    upload.write(Buffer.alloc(64 * 1024, 7));
    const deadline = Date.now() + 10_000;
    while ((await incoming().catch(() => [])).length === 0) {
      assert.ok(Date.now() < deadline, `no temporary file appeared: ${output()}`);
      await new Promise((wake) => setTimeout(wake, 20));
    }
    const [cutOff] = await incoming();
    assert.match(cutOff, new RegExp(`^\\.incoming-${HOST.replace(/\./g, '\\.')}-${server?.pid}-`));
    server?.kill('SIGKILL');
    await once(server as ChildProcess, 'exit');
    upload.destroy();

    // What else may lie there: an upload of a process that still runs (this one), a file of the
    // name format before processes were named, written to two hours ago, and one written just now.
    const live = `.incoming-${HOST}-${process.pid}-0123456789abcdef`;
    const old = '.incoming-00112233aabbccdd';
    const recent = '.incoming-44556677eeff0011';
    await mkdir(artifacts(), { recursive: true });
    for (const name of [live, old, recent]) await writeFile(join(artifacts(), name), 'partial');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    await utimes(join(artifacts(), old), twoHoursAgo, twoHoursAgo);

    await startServer();
    assert.deepEqual(await incoming(), [live, recent].sort());
    assert.match(output(), /removed 2 partial upload\(s\) left by a stopped process/);
    server?.kill('SIGTERM');
    await once(server as ChildProcess, 'exit');
  });
});
