/**
 * Bulk device import benchmark (docs/decisions.md §14): a generated CSV of `--rows` devices
 * (default 1,000,000) imported through the operator API of a real server process (the body
 * streamed from the file), and through the service the CLI drives (`firmledger device import`,
 * in this process), each into its own tenant of a fresh database. Prints rows/s and seconds.
 *
 *   npm run build && node dist/bench/import.js [--rows 1000000] [--engine sqlite|postgres]
 *
 * PostgreSQL: a new database next to TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), dropped after.
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CliModule } from '#src/cli/cli.module.js';
import { loadConfig, prepareDataDir } from '#src/platform/config/app-config.js';
import { OperatorTokenService } from '#src/domain/access/operator-token.service.js';
import { DeviceImportService } from '#src/domain/device-import/device-import.service.js';
import { TenantService } from '#src/domain/tenant/tenant.service.js';
import { createTestDatabase, type TestDatabase } from '#test/support/harness.js';
import { freePort, memoryOf, ServerProcess } from './processes.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = join(ROOT, 'dist/src/main.js');

const { values } = parseArgs({ options: { rows: { type: 'string', default: '1000000' }, engine: { type: 'string', default: 'sqlite' } } });
const ROWS = Number(values.rows);
const ENGINE = values.engine === 'postgres' ? 'postgres' : 'sqlite';

/** The `n`th device's hardware address: `02:<prefix>:xx:xx:xx:xx`. */
const macOf = (prefix: number, n: number): string =>
  [2, prefix, (n >>> 24) & 255, (n >> 16) & 255, (n >> 8) & 255, n & 255]
    .map((b) => b.toString(16).padStart(2, '0').toUpperCase())
    .join(':');

/** Writes `rows` CSV rows (mac, device_type, firmware_version, name, group: none) to `file`; its size in bytes. */
async function writeCsv(file: string, rows: number, prefix: number): Promise<number> {
  const out = createWriteStream(file);
  out.write('mac,device_type,firmware_version,name\n');
  let chunk = '';
  for (let n = 0; n < rows; n++) {
    chunk += `${macOf(prefix, n)},${['ESP32', 'ESP8266', 'pump-board'][n % 3]},1.${n % 12}.0,device ${n}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await new Promise<void>((drain) => out.once('drain', () => drain()));
      chunk = '';
    }
  }
  out.end(chunk);
  await finished(out);
  return statSync(file).size;
}

function report(label: string, rows: number, seconds: number, extra = ''): void {
  console.log(
    `${label}: ${rows.toLocaleString('en')} rows in ${seconds.toFixed(1)} s, ${Math.round(rows / seconds).toLocaleString('en')} rows/s${extra}`,
  );
}

const database: TestDatabase = await createTestDatabase(ENGINE);
try {
  const config = prepareDataDir(loadConfig({ ...database.env, LOG_LEVEL: 'error' }));
  const context = await NestFactory.createApplicationContext(CliModule.forRoot(config), { logger: ['error', 'log'], abortOnError: false });
  let apiTenant: string;
  let bearer: string;
  try {
    const tenants = context.get(TenantService);
    apiTenant = (await tenants.createTenant('import-api')).name;
    bearer = (await context.get(OperatorTokenService).create('bench')).token;

    // The service the CLI drives, in this process.
    const cliTenant = await tenants.createTenant('import-cli');
    const cliFile = join(database.dataDir, 'cli.csv');
    const cliBytes = await writeCsv(cliFile, ROWS, 0xc1);
    const started = performance.now();
    const result = await context.get(DeviceImportService).import({
      tenantId: cliTenant.id,
      format: 'csv',
      input: createReadStream(cliFile),
      maxBytes: Number.MAX_SAFE_INTEGER,
    });
    if (result.created !== ROWS) throw new Error(`the CLI path created ${result.created} of ${ROWS}`);
    report(
      `${ENGINE}, service (as firmledger device import), ${(cliBytes / 2 ** 20).toFixed(1)} MiB`,
      ROWS,
      (performance.now() - started) / 1000,
    );
  } finally {
    await context.close();
  }

  // The operator API of a real server process.
  const operatorUrl = `http://127.0.0.1:${await freePort()}`;
  const env: Record<string, string> = {
    ...database.env,
    LOG_LEVEL: 'error',
    OPERATOR_URL: operatorUrl,
    DEVICE_IMPORT_MAX_BYTES: String(2 ** 30),
  };
  for (const name of ['AUTH_URL', 'VC_URL', 'BC_URL', 'IPFS_URL', 'TOOLS_URL', 'DDI_URL', 'MENDER_URL']) {
    env[name] = `http://127.0.0.1:${await freePort()}`;
  }
  const server = await ServerProcess.start(MAIN, env, `${operatorUrl}/docs`);
  try {
    const apiFile = join(database.dataDir, 'api.csv');
    const apiBytes = await writeCsv(apiFile, ROWS, 0xa1);
    const rssBefore = memoryOf(server.pid).rss;
    const started = performance.now();
    const response = await fetch(`${operatorUrl}/tenants/${apiTenant}/devices/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'text/csv' },
      body: createReadStream(apiFile),
      duplex: 'half',
    });
    const text = await response.text();
    const seconds = (performance.now() - started) / 1000;
    if (response.status !== 200) throw new Error(`the import answered ${response.status}: ${text}`);
    const { created } = JSON.parse(text) as { created: number };
    if (created !== ROWS) throw new Error(`the API created ${created} of ${ROWS}`);
    const memory = memoryOf(server.pid);
    report(
      `${ENGINE}, operator API (streamed ${(apiBytes / 2 ** 20).toFixed(1)} MiB body)`,
      ROWS,
      seconds,
      `; server RSS ${Math.round(rssBefore / 2 ** 20)} MiB before, peak ${Math.round(memory.peak / 2 ** 20)} MiB`,
    );
  } finally {
    await server.stop();
  }
} finally {
  await database.drop();
}
