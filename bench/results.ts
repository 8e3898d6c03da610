import { DDI_SHARE } from './fleet.js';
import type { LoadResult, LoadSettings } from './load.js';
import type { Machine } from './machine.js';
import type { ReportMeasurement } from './report-run.js';
import { OPERATOR_P99_TARGET_MS, type OperatorRead } from './operator-reads.js';

/** A throughput scenario and what it is compared with. */
export interface Row {
  scenario: string;
  result: LoadResult;
  /** The same-run bare-Fastify result of the same method. */
  ceiling: LoadResult;
  /** Target: at least `ratio` of the ceiling's requests/s and, when given, p99 ≤ `p99` ms. */
  target?: { ratio: number; p99?: number };
}

/** A report scenario. */
export interface ReportRow {
  type: 'json' | 'xml' | 'pdf';
  devices: number;
  measured?: ReportMeasurement;
  /** Why it did not run. */
  skipped?: string;
}

/**
 * Report targets: json and xml of 100,000 devices under 200 MB peak (read as decimal megabytes,
 * 200,000,000 bytes = 190.7 MiB, the stricter reading); pdf of 10,000 under 15 s; pdf of 100,000
 * under 300 MB peak (286.1 MiB).
 */
export const REPORT_TARGETS = {
  streamPeakBytes: 200e6,
  streamDevices: 100_000,
  pdfSeconds: 15,
  pdfDevices: 10_000,
  pdfPeakBytes: 300e6,
  pdfPeakDevices: 100_000,
};

/** Everything RESULTS.md shows. */
export interface Results {
  machine: Machine & { loadAfter: string };
  versions: Record<string, string>;
  settings: LoadSettings;
  fleet: number;
  small: number;
  memberships: number;
  loginKeys: number;
  loginRateLimit: string;
  seedSeconds: number;
  /** Seeding of the PostgreSQL database, when the PostgreSQL scenarios ran. */
  postgresSeedSeconds?: number;
  /** The longest start of a seeded rollout (its targets given their states), per engine that ran. */
  rolloutStarts: { engine: string; seconds: number; targets: number }[];
  rows: Row[];
  /** next rollout on PostgreSQL through nginx to one instance and to two; `target`: least ratio two/one. */
  instances?: { one: LoadResult; two: LoadResult; target: number };
  reports: ReportRow[];
  drivers: { sqlite3: LoadResult; better: LoadResult; defaultDriver: string };
  /** next rollout through Nest's pipeline (`ROUTE_SHORTCUTS=false`) and with the route shortcut, one after the other. */
  shortcut?: { off: LoadResult[]; on: LoadResult[]; driver: string };
  /** The operator console's reads (bench/operator-reads.ts), per engine they ran on. */
  operatorReads: { engine: string; reads: OperatorRead[] }[];
  totalSeconds: number;
}

/** Requests/s of a scenario as a fraction of its ceiling's. */
export function ratio(row: Pick<Row, 'result' | 'ceiling'>): number {
  return row.result.requestsPerSecond / row.ceiling.requestsPerSecond;
}

/** Whether a throughput row meets its target; `undefined` when it has none. A row with failures never does. */
export function throughputMet(row: Row): boolean | undefined {
  if (!row.target) return undefined;
  if (row.result.failures > 0) return false;
  return ratio(row) >= row.target.ratio && (row.target.p99 === undefined || row.result.p99 <= row.target.p99);
}

/** Whether a report row meets its target; `undefined` when it has none (or did not run). */
export function reportMet(row: ReportRow): boolean | undefined {
  if (!row.measured) return undefined;
  if (row.type !== 'pdf' && row.devices === REPORT_TARGETS.streamDevices) return row.measured.peakRss < REPORT_TARGETS.streamPeakBytes;
  if (row.type === 'pdf' && row.devices === REPORT_TARGETS.pdfDevices) return row.measured.seconds < REPORT_TARGETS.pdfSeconds;
  if (row.type === 'pdf' && row.devices === REPORT_TARGETS.pdfPeakDevices) return row.measured.peakRss < REPORT_TARGETS.pdfPeakBytes;
  return undefined;
}

/** Whether two instances reach the target multiple of one; never with failures in either run. */
export function instancesMet(instances: NonNullable<Results['instances']>): boolean {
  if (instances.one.failures > 0 || instances.two.failures > 0) return false;
  return instances.two.requestsPerSecond / instances.one.requestsPerSecond >= instances.target;
}

const yesNo = (met: boolean | undefined): string => (met === undefined ? '–' : met ? 'yes' : '**no**');
const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);
const n = (value: number): string => value.toLocaleString('en');

function targetText(row: Row): string {
  if (!row.target) return '–';
  return `≥ ${(row.target.ratio * 100).toFixed(0)} %${row.target.p99 !== undefined ? `, p99 ≤ ${row.target.p99} ms` : ''}`;
}

/** `bench/RESULTS.md`. */
export function renderResults(r: Results): string {
  const { machine, settings } = r;
  const lines: string[] = [];
  const sqliteRate = r.drivers.sqlite3.requestsPerSecond;
  const betterRate = r.drivers.better.requestsPerSecond;
  const gain = betterRate / sqliteRate - 1;
  lines.push(
    '# Benchmark results',
    '',
    'Written by `npm run bench` (`bench/run.ts`); every figure below comes from one run on one machine.',
    '',
    '## Machine',
    '',
    `- CPU: ${machine.cpu}, ${machine.cores} cores; RAM ${(machine.memory / 2 ** 30).toFixed(1)} GiB; ${machine.os}`,
    `- Load average (1 / 5 / 15 min): ${machine.loadBefore} at the start, ${machine.loadAfter} at the end. The machine is shared:`,
    '  absolute figures move with its load, the ratios to the same-run ceiling much less.',
    `- Versions: ${Object.entries(r.versions)
      .map(([name, version]) => `${name} ${version}`)
      .join(', ')}`,
    '',
    '## Settings',
    '',
    `- autocannon (as a library, in the bench process): ${settings.connections} connections, no pipelining, ` +
      `${settings.warmup} s warm-up then ${settings.duration} s measured per scenario. Latencies in ms.`,
    '- Every server under test is its own child process on 127.0.0.1: the bare-Fastify ceiling ' +
      '(`bench/ceiling-server.ts`, a fixed small JSON on `POST` and `GET`) and the real app (`node dist/src/main.js`, ' +
      '`LOG_LEVEL=error`, default configuration otherwise).',
    `- Database: SQLite (WAL) with ${n(r.fleet)} devices in one tenant (3 device types, 12 firmware, 8 groups with ` +
      `${n(r.memberships)} memberships, 10 active rollouts plus a paused and a draft one, success records for part of a ` +
      `rollout) and ${n(r.small)} devices in a second tenant; seeded in ${r.seedSeconds.toFixed(1)} s (not measured).` +
      (r.postgresSeedSeconds !== undefined
        ? ` The PostgreSQL scenarios run on a database of their own (the local server, default settings), seeded the same way ` +
          `in ${r.postgresSeedSeconds.toFixed(1)} s, then vacuumed and analyzed (\`VACUUM ANALYZE\`: what autovacuum does on a ` +
          'server that runs it; the local one runs with `autovacuum = off`).'
        : ''),
    `- Starting a rollout (\`POST …/rollouts/:id/start\`: every target given its state and wave, one transaction), the ` +
      `longest of the seeded ones: ${r.rolloutStarts
        .map((s) => `${s.seconds.toFixed(1)} s for ${n(s.targets)} targets on ${s.engine}`)
        .join(', ')}.`,
    `- next rollout: each request from another asvin device (mac) of the large tenant, reporting the version it runs, with a ` +
      'valid token of its device type in `X-Access-Token` (300 different tokens, one login each). GET device: the same, by mac.',
    `- DDI poll: each request the root controller resource of another hawkBit DDI device of the large tenant (one device in ` +
      `${DDI_SHARE}, spread over every type, version, group and rollout; its controller id its mac), with the gateway token of ` +
      'its device type (a device key flagged `ddi_gateway`) in `Authorization: GatewayToken`.',
    `- login: every request a distinct (device key, timestamp) pair over ${r.loginKeys} device keys (a pair logs in once); ` +
      `\`LOGIN_RATE_LIMIT=${r.loginRateLimit}\` for the bench only, so the rate limit counts (one database upsert per login) ` +
      'but never refuses.',
    '- Reports: a fresh server process per report; peak = the server’s `VmHWM` reset just before the request ' +
      '(`/proc/<pid>/clear_refs`, the whole process: PDF worker threads included), time = request to last byte, body ' +
      'read as it streams.',
    ...(r.instances
      ? [
          '- Instances behind nginx: one nginx (`worker_processes 1`, upstream connections kept alive, no retry on another ' +
            'instance) in front of one app instance, or round-robin in front of two; the instances share the PostgreSQL ' +
            'database, the data directory (so the JWT secret) and Redis (`REDIS_URL`). Same tokens and requests as next rollout.',
        ]
      : []),
    '- next rollout while PDF reports render: the same scenario while the server renders two PDF reports (its most at ' +
      'once: the large tenant’s and the small one’s), read as they stream; the reports are cut off when it ends.',
    '',
    '## Device endpoints',
    '',
    '| Scenario | req/s | p50 ms | p99 ms | of ceiling | target | met | CPU µs/req: server | its event loop | PostgreSQL | load generator | cores busy |',
    '| --- | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const row of r.rows) {
    const failures = row.result.failures ? ` (${n(row.result.failures)} failed)` : '';
    const cpu = row.result.cpu;
    lines.push(
      `| ${row.scenario} | ${n(Math.round(row.result.requestsPerSecond))}${failures} | ${row.result.p50} | ${row.result.p99} | ` +
        `${(ratio(row) * 100).toFixed(0)} % | ${targetText(row)} | ${yesNo(throughputMet(row))} | ` +
        `${cpu ? n(Math.round(cpu.server)) : '–'} | ${cpu ? n(Math.round(cpu.eventLoop)) : '–'} | ${cpu?.postgres !== undefined ? n(Math.round(cpu.postgres)) : '–'} | ` +
        `${cpu ? n(Math.round(cpu.loadGenerator)) : '–'} | ${cpu ? cpu.coresBusy.toFixed(2) : '–'} |`,
    );
  }
  lines.push(
    '',
    'CPU per request: the CPU time (user and system, every thread) the server process used during the measured run, ' +
      'divided by its requests; for PostgreSQL, that of every `postgres` process of the machine (its backends run the ' +
      'queries); for the load generator, that of the bench process. The server’s event loop (its main thread) runs ' +
      'on one core at most: 1,000,000 ÷ its µs is the most requests a second one process can answer, however many ' +
      'cores the machine has (the rest of the server’s time is its writer thread, its other threads and the ' +
      'kernel’s work for them). Cores busy: the three together over the run’s wall ' +
      `time, on a machine of ${r.machine.cores} cores; near ${r.machine.cores}, the run was bound by the machine's CPU, ` +
      'which the server shares with the load generator (and PostgreSQL). Requests a second depend on that sharing and on ' +
      'the machine’s other tenants; CPU per request much less. A core serves at most 1,000,000 ÷ (server + PostgreSQL µs) ' +
      'requests a second of a scenario; the ceiling’s is what Node’s HTTP and Fastify cost alone.',
  );
  if (r.instances) {
    const { one, two, target } = r.instances;
    lines.push(
      '',
      `Several instances (PostgreSQL, next rollout): two instances behind nginx ${n(Math.round(two.requestsPerSecond))} req/s, ` +
        `one instance behind the same nginx ${n(Math.round(one.requestsPerSecond))} req/s: ` +
        `${(two.requestsPerSecond / one.requestsPerSecond).toFixed(2)}× (target ≥ ${target}×, met: ${yesNo(instancesMet(r.instances))}). ` +
        'Both on one database and one Redis (`REDIS_URL`), sharing the machine’s cores with PostgreSQL, nginx and the load generator.',
    );
  }
  if (r.operatorReads.length > 0) {
    lines.push(
      '',
      '## Operator reads',
      '',
      `The requests the operator console's pages make (\`bench/operator-reads.ts\`), signed in as a viewer on \`OPERATOR_URL\`, ` +
        `one at a time (an operator clicking, not a load test): up to 50 timed runs each after warm-ups (fewer, at least 5, ` +
        `once a request's runs took 15 s; with fewer than 100 runs the p99 is the slowest), on the large tenant ` +
        `(${n(r.fleet)} devices). \`GET /healthz\` is the baseline of what any request costs.`,
      '',
      `| Engine | Request | runs | median ms | p99 ms | target | met |`,
      '| --- | --- | ---: | ---: | ---: | --- | --- |',
    );
    for (const { engine, reads } of r.operatorReads) {
      for (const read of reads) {
        const baseline = read.page === 'baseline';
        lines.push(
          `| ${engine} | \`GET /${read.path.replace(/\|/g, '\\|')}\` | ${read.runs} | ${read.median.toFixed(1)} | ${read.p99.toFixed(1)} | ` +
            `${baseline ? '–' : `p99 < ${OPERATOR_P99_TARGET_MS} ms`} | ${baseline ? '–' : yesNo(read.p99 < OPERATOR_P99_TARGET_MS)} |`,
        );
      }
    }
  }
  lines.push(
    '',
    '## Reports',
    '',
    '| Report | devices | time s | size MB | server RSS before MiB | peak RSS MiB | target | met |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |',
  );
  for (const row of r.reports) {
    const target =
      row.type !== 'pdf' && row.devices === REPORT_TARGETS.streamDevices
        ? 'peak < 200 MB (190.7 MiB)'
        : row.type === 'pdf' && row.devices === REPORT_TARGETS.pdfDevices
          ? '< 15 s'
          : row.type === 'pdf' && row.devices === REPORT_TARGETS.pdfPeakDevices
            ? 'peak < 300 MB (286.1 MiB)'
            : '–';
    if (!row.measured) {
      lines.push(`| ${row.type} | ${n(row.devices)} | skipped: ${row.skipped ?? 'not run'} | | | | ${target} | – |`);
      continue;
    }
    const m = row.measured;
    lines.push(
      `| ${row.type} | ${n(row.devices)} | ${m.seconds.toFixed(2)} | ${(m.bytes / 1e6).toFixed(1)} | ${mib(m.rssBefore)} | ` +
        `${mib(m.peakRss)}${m.peakReset ? '' : ' (since start)'} | ${target} | ${yesNo(reportMet(row))} |`,
    );
  }
  lines.push(
    '',
    '## SQLite driver',
    '',
    `next rollout, same run, same database: sqlite3 ${n(Math.round(sqliteRate))} req/s (p99 ${r.drivers.sqlite3.p99} ms), ` +
      `better-sqlite3 ${n(Math.round(betterRate))} req/s (p99 ${r.drivers.better.p99} ms): better-sqlite3 ${gain >= 0 ? '+' : ''}${(gain * 100).toFixed(0)} %. ` +
      `Default (\`SQLITE_DRIVER\`): ${r.drivers.defaultDriver}.`,
    '',
    ...(r.shortcut ? shortcutSection(r.shortcut) : []),
    `Whole run: ${(r.totalSeconds / 60).toFixed(1)} min.`,
    '',
  );
  return lines.join('\n');
}

/**
 * What next rollout's route shortcut buys: the same requests through Nest's pipeline
 * (`ROUTE_SHORTCUTS=false`) and past it, alternating; both validated and serialized by the route's
 * compiled JSON Schemas. The ratio is of the mean rates.
 */
function shortcutSection({ off, on, driver }: NonNullable<Results['shortcut']>): string[] {
  const mean = (results: LoadResult[]) => results.reduce((sum, r) => sum + r.requestsPerSecond, 0) / results.length;
  const each = (results: LoadResult[]) => results.map((r) => `${n(Math.round(r.requestsPerSecond))} req/s (p99 ${r.p99} ms)`).join(', ');
  return [
    '## Route shortcut',
    '',
    `next rollout (${driver}), app processes one after the other on the same data, the same requests, alternating: ` +
      `through Nest's guard, pipes and filter (\`ROUTE_SHORTCUTS=false\`) ${each(off)}; with the shortcut ${each(on)}: ` +
      `${(mean(on) / mean(off)).toFixed(2)}× the requests a second with it. Both paths validate the body and serialize the ` +
      'answer with the same compiled JSON Schemas; the shortcut skips only the pipeline, and stays while this is above 1.',
    '',
  ];
}
