import type { Command } from 'commander';
import { loadConfig } from '#src/platform/config/app-config.js';
import { CliError } from './cli-context.js';
import { example, jsonOption, positiveInt } from './command-kit.js';
import { print, showProgress, snakeCaseKeys } from './output.js';
import { formatSummary, simulate, simulatedMacs } from '#src/cli/simulate/simulator.js';

/** `firmledger simulate`: N field devices against a running server. */
export function registerSimulateCommand(program: Command): void {
  example(
    program
      .command('simulate')
      .description(
        'act as N field devices against a running server: login, register, next rollout, ledger lookup, download, verify, ' +
          'report success; shows its progress on stderr (not with --json)',
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
      .option('--print-macs', 'only print the macs the devices use, one per line (to put them in a group)')
      .addOption(jsonOption())
      .action(async (o: Record<string, string | number | boolean | undefined>) => {
        if (o['printMacs']) {
          process.stdout.write(`${simulatedMacs(String(o['macPrefix']), Number(o['devices'])).join('\n')}\n`);
          return;
        }
        if (!o['customerKey'] || !o['deviceKey']) throw new CliError('--customer-key and --device-key are required');
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
            failRate: shareOf('--fail-rate', String(o['failRate'])),
            fallbackRate: shareOf('--fallback-rate', String(o['fallbackRate'])),
          },
          o['json'] ? undefined : showProgress,
        );
        print(summary, !!o['json'], formatSummary, snakeCaseKeys);
        if (Object.values(summary.failures).some((n) => n > 0)) process.exitCode = 1;
      }),
    'firmledger simulate --customer-key "$CUSTOMER_KEY" --device-key "$DEVICE_KEY" --devices 100',
    'firmledger simulate --customer-key "$CUSTOMER_KEY" --device-key "$DEVICE_KEY" --devices 1000 --fallback-rate 0.2',
    'firmledger group add field-test $(firmledger simulate --print-macs --devices 100) --tenant acme',
  );
}

function shareOf(option: string, text: string): number {
  const value = /^\d*\.?\d+$/.test(text) ? Number(text) : NaN;
  if (!(value >= 0 && value <= 1)) throw new CliError(`${option} must be a share from 0 to 1`);
  return value;
}
