import type { Command } from 'commander';
import { loadConfig } from '#src/platform/config/app-config.js';
import { CliError } from './cli-context.js';
import { example, jsonOption, positiveInt } from './command-kit.js';
import { note, print, showProgress, snakeCaseKeys } from './output.js';
import { formatSummary, MAX_POLL_INTERVAL_SECONDS, MAX_ROUNDS, simulate, simulatedMacs } from '#src/cli/simulate/simulator.js';

/** `firmledger simulate`: N field devices against a running server. */
export function registerSimulateCommand(program: Command): void {
  example(
    program
      .command('simulate')
      .description(
        'act as N field devices against a running server: login, register, next rollout, ledger lookup, download, verify, ' +
          'report success; with --rounds, devices told there is nothing for them now ask again each round; ' +
          'shows its progress on stderr (not with --json)',
      )
      .option('--customer-key <key>', 'customer key of the tenant')
      .option('--device-key <key>', 'device key the devices log in with')
      .option('--devices <n>', 'number of devices', positiveInt('--devices'), 100)
      .option('--concurrency <n>', 'devices in flight at once', positiveInt('--concurrency'), 20)
      .option('--mac-prefix <prefix>', 'first 3 bytes of the simulated macs', '02:F1:ED')
      .option('--firmware-version <version>', 'version the devices run before updating', '1.0.0')
      .option('--auth-url <url>', 'authentication base URL (default: AUTH_URL)')
      .option('--vc-url <url>', 'version controller base URL (default: VC_URL)')
      .option('--bc-url <url>', 'blockchain lookup base URL (default: BC_URL)')
      .option('--ipfs-url <url>', 'IPFS download server base URL (default: IPFS_URL)')
      .option(
        '--fail-rate <share>',
        'share of devices (0 to 1, the same ones every run) that send a failure report instead of success',
        '0',
      )
      .option(
        '--fallback-rate <share>',
        'share of devices (0 to 1, the same ones every run) whose new image does not boot: success reported, then back on the old version',
        '0',
      )
      .option(
        '--silent-rate <share>',
        'share of devices (0 to 1, the same ones every run, after the failing and falling-back ones) that download the offered ' +
          'firmware and then go silent: no report (a rollout timeout marks them timed_out)',
        '0',
      )
      .option(
        '--rounds <n>',
        `rounds (1 to ${MAX_ROUNDS}): devices told there is nothing for them now (ramp spent, window closed, wave not started) ` +
          'ask again in the next round, until they update or the rounds end',
        positiveInt('--rounds'),
        1,
      )
      .option('--poll-interval <seconds>', 'seconds to wait between rounds (0 to 86400)', '60')
      .option('--print-macs', 'only print the macs the devices use, one per line (to put them in a group)')
      .addOption(jsonOption())
      .action(async (o: Record<string, string | number | boolean | undefined>) => {
        if (o['printMacs']) {
          process.stdout.write(`${simulatedMacs(String(o['macPrefix']), Number(o['devices'])).join('\n')}\n`);
          return;
        }
        if (!o['customerKey'] || !o['deviceKey']) throw new CliError('--customer-key and --device-key are required');
        const failRate = shareOf('--fail-rate', String(o['failRate']));
        const fallbackRate = shareOf('--fallback-rate', String(o['fallbackRate']));
        const silentRate = shareOf('--silent-rate', String(o['silentRate']));
        if (failRate + fallbackRate + silentRate > 1 + 1e-9) {
          throw new CliError('--fail-rate, --fallback-rate and --silent-rate together must be at most 1');
        }
        const rounds = Number(o['rounds']);
        if (rounds > MAX_ROUNDS) throw new CliError(`--rounds must be at most ${MAX_ROUNDS}`);
        const pollIntervalSeconds = secondsOf('--poll-interval', String(o['pollInterval']));
        const config = loadConfig();
        const local = (url: URL) => url.href.replace('//0.0.0.0', '//127.0.0.1').replace(/\/$/, '');
        const summary = await simulate(
          {
            authUrl: String(o['authUrl'] ?? local(config.urls.auth)),
            vcUrl: String(o['vcUrl'] ?? local(config.urls.vc)),
            bcUrl: String(o['bcUrl'] ?? local(config.urls.bc)),
            ipfsUrl: String(o['ipfsUrl'] ?? local(config.urls.ipfs)),
            customerKey: String(o['customerKey']),
            deviceKey: String(o['deviceKey']),
            devices: Number(o['devices']),
            concurrency: Number(o['concurrency']),
            macPrefix: String(o['macPrefix']),
            firmwareVersion: String(o['firmwareVersion']),
            failRate,
            fallbackRate,
            silentRate,
            rounds,
            pollIntervalSeconds,
          },
          o['json'] ? undefined : showProgress,
          o['json'] ? undefined : note,
        );
        print(summary, !!o['json'], formatSummary, snakeCaseKeys);
        if (Object.values(summary.failures).some((n) => n > 0)) process.exitCode = 1;
      }),
    'firmledger simulate --customer-key "$CUSTOMER_KEY" --device-key "$DEVICE_KEY" --devices 100',
    'firmledger simulate --customer-key "$CUSTOMER_KEY" --device-key "$DEVICE_KEY" --devices 1000 --fallback-rate 0.2',
    'firmledger simulate --customer-key "$CUSTOMER_KEY" --device-key "$DEVICE_KEY" --devices 200 --silent-rate 0.1',
    'firmledger simulate --customer-key "$CUSTOMER_KEY" --device-key "$DEVICE_KEY" --devices 500 --rounds 10 --poll-interval 30',
    'firmledger group add field-test $(firmledger simulate --print-macs --devices 100) --tenant acme',
  );
}

function shareOf(option: string, text: string): number {
  const value = /^\d*\.?\d+$/.test(text) ? Number(text) : NaN;
  if (!(value >= 0 && value <= 1)) throw new CliError(`${option} must be a share from 0 to 1`);
  return value;
}

function secondsOf(option: string, text: string): number {
  const value = /^\d*\.?\d+$/.test(text) ? Number(text) : NaN;
  if (!(value >= 0 && value <= MAX_POLL_INTERVAL_SECONDS))
    throw new CliError(`${option} must be from 0 to ${MAX_POLL_INTERVAL_SECONDS} seconds`);
  return value;
}
