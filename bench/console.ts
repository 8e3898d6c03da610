/**
 * `npm run bench:console`: the operator console's reads at 100,000 devices. Seeds the benchmark's
 * fleet (bench/seed.ts: 100,000 devices of three types on four versions, eight groups, twelve
 * rollouts), signs a console user in and times each request the console's pages make, one at a
 * time (an operator clicking, not a load test; bench/operator-reads.ts): median, p99 and slowest
 * of 50 after 3 warm-ups, with `GET /healthz` on the same listener as the baseline of what any
 * request costs.
 *
 *   npm run bench:console                       100,000 devices
 *   npm run bench:console -- --devices 1000000  another fleet size
 *   npm run bench:console -- --quick            5,000 devices (smoke run)
 *   npm run bench:console -- --engine postgres  on PostgreSQL (a database of its own beside
 *                                                BENCH_DATABASE_URL, dropped at the end)
 */
import 'reflect-metadata';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOperatorUser, measureOperatorReads, operatorReadLine, signIn } from './operator-reads.js';
import { listenerUrls, ServerProcess } from './processes.js';
import { devicesArgument } from './fleet.js';
import { createBenchDatabase, seed } from './seed.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const quick = process.argv.includes('--quick');
const FLEET = devicesArgument() ?? (quick ? 5_000 : 100_000);
const engineAt = process.argv.indexOf('--engine');
const POSTGRES = engineAt >= 0 && process.argv[engineAt + 1] === 'postgres';

const log = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'firmledger-bench-console-'));
  let server: ServerProcess | undefined;
  const database = POSTGRES ? await createBenchDatabase() : undefined;
  try {
    log(`seeding ${FLEET.toLocaleString('en')} devices on ${POSTGRES ? 'PostgreSQL' : 'SQLite'}…`);
    const seeded = await seed(dataDir, FLEET, 10, 0, database?.url);
    await createOperatorUser(dataDir, database?.url);

    const urls = await listenerUrls();
    const operator = urls['OPERATOR_URL'];
    server = await ServerProcess.start(
      join(ROOT, 'dist/src/main.js'),
      {
        ...urls,
        DATA_DIR: dataDir,
        ...(database ? { DATABASE_URL: database.url } : {}),
        LOG_LEVEL: 'error',
      },
      `${operator}/readyz`,
    );
    const cookie = await signIn(operator);
    log(`\n| Page | Request | Median ms | p99 ms | Slowest ms | Items / total |`);
    log(`| --- | --- | ---: | ---: | ---: | --- |`);
    await measureOperatorReads(operator, cookie, seeded.fleet, {
      runs: quick ? 20 : 50,
      onRead: (read) => log(operatorReadLine(read)),
    });
  } finally {
    await server?.stop();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
