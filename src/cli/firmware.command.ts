import type { Command } from 'commander';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { FirmwareService } from '#src/firmware/firmware.service.js';
import { CliError } from './cli-context.js';
import { jsonOption, run, tenantId, tenantOption } from './command-kit.js';
import { table } from './output.js';

/** `firmledger firmware publish|list`: firmware artifacts. */
export function registerFirmwareCommands(program: Command): void {
  const firmware = program.command('firmware').description('firmware artifacts');
  firmware
    .command('publish <file>')
    .description('publish a binary: computes md5, sha256 and the IPFS CIDv0, stores it, records it on the ledger')
    .addOption(tenantOption())
    .requiredOption('--version <version>', 'firmware version, e.g. 1.2.0')
    .requiredOption('--type <dType>', 'device type it is built for, e.g. ESP32')
    .addOption(jsonOption())
    .action((file: string, o: { tenant: string; version: string; type: string; json?: boolean }) => {
      if (!existsSync(file) || !statSync(file).isFile()) throw new CliError(`no such file: ${file}`);
      if (o.version.length > 64) throw new CliError('--version must be 1 to 64 characters');
      return run(
        async (get) =>
          get(FirmwareService).publish(
            // The service applies FIRMWARE_MAX_BYTES: a file over it is refused before it is read.
            { tenantId: await tenantId(get, o.tenant), version: o.version, deviceType: o.type, declaredBytes: statSync(file).size },
            createReadStream(file),
          ),
        !!o.json,
        (f) => `firmware ${f.id}: ${f.version} for ${f.deviceType}, ${f.size} bytes\nmd5 ${f.md5}\nsha256 ${f.sha256}\ncid ${f.cid}`,
      );
    });
  firmware
    .command('list')
    .addOption(tenantOption())
    .addOption(jsonOption())
    .action((o: { tenant: string; json?: boolean }) =>
      run(
        async (get) => get(FirmwareService).list(await tenantId(get, o.tenant)),
        !!o.json,
        (rows) => table(rows, ['id', 'version', 'deviceType', 'size', 'md5', 'cid']),
      ),
    );
}
