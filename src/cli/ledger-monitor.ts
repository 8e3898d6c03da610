import type { Command } from 'commander';
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { Gauge, Registry } from 'prom-client';
import {
  ALERT_KINDS,
  monitorLog,
  type AlertKind,
  type MonitorOutcome,
  type MonitorState,
  type TileSource,
} from '#src/domain/ledger/monitor.js';
import { parseVerifier } from '#src/platform/crypto/signed-note.js';
import { CliError } from './cli-context.js';
import { example, jsonOption, positiveInt } from './command-kit.js';
import { print } from './output.js';

/** Options of `firmledger ledger monitor`. */
interface MonitorOptions {
  from: string;
  state: string;
  logKey?: string;
  header: string[];
  metricsFile?: string;
  interval?: number;
  json?: boolean;
}

/**
 * `firmledger ledger monitor --from URL --state F`: follows a log through its C2SP tiles
 * (`monitorLog`), keeps what it saw in `F` (JSON) and `F.leaves` (32 bytes per entry), and alerts
 * on a split view, a rewritten entry or a checkpoint that does not extend the last one: exit code
 * 1, a line naming it, and `firmledger_monitor_alert{kind}` in `--metrics-file` (Prometheus text
 * format, for node_exporter's textfile collector).
 */
export function registerMonitorCommand(ledger: Command): void {
  example(
    ledger
      .command('monitor')
      .description(
        'follow a log through its tiles (C2SP tlog-tiles): check every new entry’s text, chain link and place in the tree and every ' +
          'new checkpoint; exits 1 naming a split view, a rewritten entry or a checkpoint that does not extend the last one seen',
      )
      .requiredOption('--from <url>', 'the log’s tile prefix: a server’s BC_URL, or {operator_url}/ledger with an operator token')
      .requiredOption('--state <file>', 'what the monitor saw (JSON, and <file>.leaves; created on the first run)')
      .option('--log-key <vkey>', "the log's public key (firmledger ledger key); needed on the first run")
      .option(
        '--header <header>',
        'a request header, e.g. "Authorization: Bearer flo_…" (repeatable)',
        (v: string, all: string[]) => [...all, v],
        [],
      )
      .option('--metrics-file <file>', 'write Prometheus metrics here after each run (firmledger_monitor_alert{kind}, tree size, time)')
      .option('--interval <seconds>', 'run again every this many seconds until SIGINT or SIGTERM', positiveInt('--interval'))
      .addOption(jsonOption())
      .action(async (o: MonitorOptions) => {
        const from = o.from.replace(/\/+$/, '');
        if (!/^https?:\/\//.test(from)) throw new CliError('--from must be an http:// or https:// URL');
        const source = httpTiles(from, o.header);
        let stop = false;
        let wake: (() => void) | undefined;
        const halt = () => {
          stop = true;
          wake?.();
        };
        process.once('SIGINT', halt);
        process.once('SIGTERM', halt);
        for (;;) {
          const outcome = await runOnce(o, source);
          process.exitCode = outcome.ok ? 0 : 1;
          if (o.interval === undefined || stop) break;
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, o.interval! * 1000).unref();
          });
          if (stop) break;
        }
        process.removeListener('SIGINT', halt);
        process.removeListener('SIGTERM', halt);
      }),
    'firmledger ledger monitor --from https://bc.example.com --state monitor.json --log-key "$(cat log.vkey)" --metrics-file /var/lib/node_exporter/firmledger.prom',
  );
}

/** One run: check, keep the new state (or not, on an alert), write the metrics, say what happened. */
async function runOnce(o: MonitorOptions, source: TileSource): Promise<MonitorOutcome> {
  const files = new MonitorFiles(o.state);
  const state = files.read();
  const logKey = o.logKey ?? state?.log_key;
  if (!logKey) throw new CliError('monitor: the log key is needed on the first run (--log-key, as firmledger ledger key prints it)');
  if (state && o.logKey && o.logKey !== state.log_key)
    throw new CliError(`monitor: the state file follows another log key (${state.log_key})`);
  try {
    parseVerifier(logKey);
  } catch (error) {
    throw new CliError(`--log-key: ${(error as Error).message}`);
  }
  let outcome: MonitorOutcome;
  try {
    outcome = await monitorLog(state, logKey, source, (index) => files.leaf(index));
  } catch (error) {
    throw new CliError(`monitor: ${(error as Error).message}`);
  }
  if (outcome.ok) files.write(outcome.state, outcome.newLeaves);
  if (o.metricsFile)
    await writeMetrics(
      o.metricsFile,
      logKey.split('+')[0],
      outcome.ok ? null : outcome.kind,
      outcome.ok ? outcome.state.size : (state?.size ?? 0),
    );
  if (outcome.ok) {
    const { state: next, previousSize } = outcome;
    const checked = outcome.chainChecked
      ? 'entry texts, chain links and tree checked'
      : 'tree checked (entry bundles not readable: chain not checked)';
    print({ ok: true, tree_size: next.size, previous_size: previousSize, chain_checked: outcome.chainChecked }, !!o.json, () =>
      previousSize === next.size
        ? `monitor: tree size ${next.size}, unchanged; ${checked}`
        : `monitor: tree size ${next.size} extends ${previousSize} (${next.size - previousSize} new entries); ${checked}`,
    );
  } else {
    print(
      { ok: false, kind: outcome.kind, message: outcome.message, tree_size: outcome.size },
      !!o.json,
      () => `monitor ALERT ${outcome.kind}: ${outcome.message}`,
    );
  }
  return outcome;
}

/** The log's tiles over HTTP(S), with the given request headers; a 403 (entry bundles not public) is `null`. */
function httpTiles(base: string, headerLines: string[]): TileSource {
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon < 1) throw new CliError(`--header must be "Name: value" (got "${line}")`);
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  const get = async (path: string): Promise<Response> => fetch(`${base}/${path}`, { headers, signal: AbortSignal.timeout(30_000) });
  return {
    async checkpoint() {
      const answer = await get('checkpoint');
      if (!answer.ok) throw new Error(`GET ${base}/checkpoint answered ${answer.status}: ${(await answer.text()).slice(0, 200)}`);
      return answer.text();
    },
    async tile(path) {
      const answer = await get(`tile/${path}`);
      if (answer.status === 403) return null;
      if (!answer.ok) throw new Error(`GET ${base}/tile/${path} answered ${answer.status}: ${(await answer.text()).slice(0, 200)}`);
      return Buffer.from(await answer.arrayBuffer());
    },
  };
}

/**
 * The monitor's files: `<state>` (JSON, {@link MonitorState}) and `<state>.leaves` (the leaf hash
 * of every entry seen, 32 bytes each, in order). The leaves are written (and synced) first, the
 * state then renamed into place, so a crash in between leaves extra leaves that the next run cuts.
 */
class MonitorFiles {
  private leaves: Buffer;

  constructor(private readonly path: string) {
    this.leaves = existsSync(this.leavesPath) ? readFileSync(this.leavesPath) : Buffer.alloc(0);
  }

  private get leavesPath(): string {
    return `${this.path}.leaves`;
  }

  read(): MonitorState | null {
    if (!existsSync(this.path)) return null;
    const state = JSON.parse(readFileSync(this.path, 'utf8')) as MonitorState;
    if (this.leaves.length < state.size * 32)
      throw new CliError(`monitor: ${this.leavesPath} holds fewer than the ${state.size} leaves seen`);
    this.leaves = this.leaves.subarray(0, state.size * 32);
    return state;
  }

  /** The kept leaf hash of an entry (0-based index); `null` beyond what was seen. */
  leaf(index: number): Buffer | null {
    return (index + 1) * 32 <= this.leaves.length ? this.leaves.subarray(index * 32, (index + 1) * 32) : null;
  }

  write(state: MonitorState, newLeaves: Buffer[]): void {
    const kept = (state.size - newLeaves.length) * 32;
    if (existsSync(this.leavesPath)) truncateSync(this.leavesPath, kept);
    const fd = openSync(this.leavesPath, 'a');
    try {
      for (const leaf of newLeaves) writeSync(fd, leaf);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    const temporary = `${this.path}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`);
    renameSync(temporary, this.path);
  }
}

/** Writes the monitor's metrics in the Prometheus text format (a temporary file renamed into place). */
async function writeMetrics(file: string, origin: string, alert: AlertKind | null, size: number): Promise<void> {
  const registry = new Registry();
  const alerts = new Gauge({
    name: 'firmledger_monitor_alert',
    help: 'Whether the monitor’s last run found the log misbehaving (1) or not (0), by kind: split view, rewritten entry, non-extending or bad checkpoint.',
    labelNames: ['origin', 'kind'],
    registers: [registry],
  });
  for (const kind of ALERT_KINDS) alerts.set({ origin, kind }, kind === alert ? 1 : 0);
  new Gauge({
    name: 'firmledger_monitor_tree_size',
    help: 'Tree size of the newest checkpoint the monitor verified.',
    labelNames: ['origin'],
    registers: [registry],
  }).set({ origin }, size);
  new Gauge({
    name: 'firmledger_monitor_last_run_timestamp_seconds',
    help: 'When the monitor last ran, POSIX seconds.',
    labelNames: ['origin'],
    registers: [registry],
  }).set({ origin }, Math.floor(Date.now() / 1000));
  const temporary = `${file}.tmp`;
  writeFileSync(temporary, await registry.metrics());
  renameSync(temporary, file);
}
