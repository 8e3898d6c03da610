/**
 * `npm run bench:console`: the operator console's reads at 100,000 devices. Seeds the benchmark's
 * fleet (bench/seed.ts: 100,000 devices of three types on four versions, eight groups, twelve
 * rollouts), signs a console user in and times each request the console's pages make, one at a
 * time (an operator clicking, not a load test): median and slowest of 20 after 2 warm-ups, with
 * `GET /healthz` on the same listener as the baseline of what any request costs.
 *
 *   npm run bench:console              100,000 devices
 *   npm run bench:console -- --quick   5,000 devices (smoke run)
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliModule } from '#src/cli/cli.module.js';
import { loadConfig, prepareDataDir } from '#src/platform/config/app-config.js';
import { OperatorUserService } from '#src/domain/access/operator-user.service.js';
import { fleetDevice } from './fleet.js';
import { freePort, ServerProcess } from './processes.js';
import { seed } from './seed.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const quick = process.argv.includes('--quick');
const FLEET = quick ? 5_000 : 100_000;
const RUNS = 20;
const WARMUP = 2;
const PASSWORD = 'bench console password';

const log = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'firmledger-bench-console-'));
  let server: ServerProcess | undefined;
  try {
    log(`seeding ${FLEET.toLocaleString('en')} devices…`);
    const seeded = await seed(dataDir, FLEET, 10, 0);
    const context = await NestFactory.createApplicationContext(
      CliModule.forRoot(prepareDataDir(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'error' }))),
      { logger: ['error'], abortOnError: false },
    );
    await context.get(OperatorUserService).create('bench', PASSWORD, 'viewer');
    await context.close();

    const ports = [await freePort(), await freePort(), await freePort(), await freePort()];
    const operator = `http://127.0.0.1:${ports[3]}`;
    server = await ServerProcess.start(
      join(ROOT, 'dist/src/main.js'),
      {
        AUTH_URL: `http://127.0.0.1:${ports[0]}`,
        VC_URL: `http://127.0.0.1:${ports[1]}`,
        BC_URL: `http://127.0.0.1:${ports[2]}`,
        OPERATOR_URL: operator,
        DATA_DIR: dataDir,
        LOG_LEVEL: 'error',
      },
      `${operator}/readyz`,
    );
    const signIn = await fetch(`${operator}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'bench', password: PASSWORD }),
    });
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
    if (signIn.status !== 200 || !cookie) throw new Error(`sign-in failed: ${signIn.status}`);

    const t = `tenants/${seeded.fleet.name}`;
    const lastMac = fleetDevice(FLEET - 1, seeded.fleet.macPrefix).mac;
    const dayAgo = new Date(Date.now() - 86_400_000).toISOString();
    const halfHourAgo = new Date(Date.now() - 1_800_000).toISOString();
    const lastPage = Math.ceil(FLEET / 50);
    const requests: [page: string, path: string][] = [
      ['baseline', 'healthz'],
      ['overview', `${t}/fleet`],
      ['overview', `${t}/rollouts?status=active&per_page=20`],
      ['overview', 'ledger/entries?order=desc&per_page=1'],
      ['devices', `${t}/devices?per_page=50`],
      ['devices', `${t}/devices?per_page=50&page=${lastPage}`],
      ['devices', `${t}/devices?per_page=50&q=${encodeURIComponent(lastMac.slice(-8))}`],
      ['devices', `${t}/devices?per_page=50&q=K%C3%BChlhaus`],
      ['devices', `${t}/devices?per_page=50&group=region-2&firmware_version=1.1.0&device_type=ESP32`],
      ['devices', `${t}/devices?per_page=50&seen_since=${encodeURIComponent(halfHourAgo)}`],
      ['devices', `${t}/devices?per_page=50&not_seen_since=${encodeURIComponent(dayAgo)}`],
      ['device', `${t}/devices/${encodeURIComponent(lastMac)}`],
      ['groups', `${t}/groups?per_page=50`],
      ['group', `${t}/groups/everyone?per_page=50&page=${lastPage}`],
      ['rollouts', `${t}/rollouts?per_page=50`],
      ['rollout', `${t}/rollouts/1`],
      ['ledger', 'ledger/entries?order=desc&per_page=50'],
    ];
    log(`\n| Page | Request | Median ms | Slowest ms | Items / total |`);
    log(`| --- | --- | ---: | ---: | --- |`);
    for (const [page, path] of requests) {
      const times: number[] = [];
      let shape = '';
      for (let i = 0; i < WARMUP + RUNS; i++) {
        const started = performance.now();
        const answer = await fetch(`${operator}/${path}`, { headers: { cookie } });
        const body = (await answer.json()) as { items?: unknown[]; total?: number; devices?: number };
        if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${JSON.stringify(body)}`);
        if (i >= WARMUP) times.push(performance.now() - started);
        shape = body.items ? `${body.items.length} / ${body.total}` : body.devices !== undefined ? `${body.devices} devices` : '';
      }
      times.sort((a, b) => a - b);
      log(
        `| ${page} | \`GET /${path.replace(/\|/g, '\\|')}\` | ${times[RUNS >> 1].toFixed(1)} | ${times[RUNS - 1].toFixed(1)} | ${shape} |`,
      );
    }
  } finally {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
