import type { Command } from 'commander';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { Transform, pipeline, type Readable } from 'node:stream';
import { FirmwareService } from '#src/domain/firmware/firmware.service.js';
import { firmwareResponse } from '#src/operator/operator-responses.js';
import { CliError } from './cli-context.js';
import { example, jsonOption, positiveInt, run, tenantId, tenantOption } from './command-kit.js';
import { endProgress, showProgress, table } from './output.js';

/** How often publish progress is shown, ms (as the simulator: at most ~4 lines a second). */
const PROGRESS_INTERVAL_MS = 250;

/** `firmledger firmware publish|list|rollback-target`: firmware artifacts. */
export function registerFirmwareCommands(program: Command): void {
  const firmware = example(
    program.command('firmware').description('firmware artifacts: binaries devices download by CID'),
    'firmledger firmware publish fw-1.1.0.bin --tenant acme --version 1.1.0 --type ESP32',
    'firmledger firmware publish release-2.mender --tenant acme',
    'firmledger firmware list --tenant acme',
  );
  example(
    firmware
      .command('publish <file>')
      .description(
        'publish a binary: computes md5, sha256 and the IPFS CIDv0, stores it, records it on the ledger; ' +
          'shows its progress on stderr (not with --json). A Mender artifact (FILE.mender) is published with its header’s ' +
          'artifact name as the version and its compatible device type as the type (--type picks one when it lists several); ' +
          'it must be signed with the tenant’s artifact verification key when the tenant has one',
      )
      .addOption(tenantOption())
      .option('--version <version>', 'firmware version, e.g. 1.2.0 (required, except for a .mender file: its artifact name)')
      .option('--type <dType>', 'device type it is built for, e.g. ESP32 (required, except for a .mender file)')
      .option('--filename <name>', 'the artifact’s file name for hawkBit DDI devices (default: the file’s own name)')
      .addOption(jsonOption())
      .action((file: string, o: { tenant: string; version?: string; type?: string; filename?: string; json?: boolean }) => {
        if (!existsSync(file) || !statSync(file).isFile()) throw new CliError(`no such file: ${file}`);
        if (o.version !== undefined && o.version.length > 64) throw new CliError('--version must be 1 to 64 characters');
        const mender = file.endsWith('.mender');
        if (!mender && (o.version === undefined || o.type === undefined)) {
          throw new CliError('--version and --type are required (except for a Mender artifact, FILE.mender)');
        }
        const size = statSync(file).size;
        return run(
          async (get) => {
            // The service applies FIRMWARE_MAX_BYTES: a file over it is refused before it is read.
            const request = { tenantId: await tenantId(get, o.tenant), filename: o.filename ?? basename(file), declaredBytes: size };
            const bytes = withProgress(createReadStream(file), `publishing ${basename(file)}`, size);
            return mender
              ? get(FirmwareService).publishMenderArtifact({ ...request, version: o.version, deviceType: o.type }, bytes)
              : get(FirmwareService).publish({ ...request, version: o.version!, deviceType: o.type! }, bytes);
          },
          !!o.json,
          (f) =>
            [
              `firmware ${f.id}: ${f.version} for ${f.deviceType}, ${f.size} bytes, file ${f.filename}`,
              `md5 ${f.md5}`,
              `sha256 ${f.sha256}`,
              `cid ${f.cid}`,
              ...(f.menderArtifact === null
                ? []
                : [
                    `Mender artifact ${f.menderArtifact.artifactName} for ${f.menderArtifact.deviceTypesCompatible.join(', ')}; ` +
                      (f.menderArtifact.signed
                        ? f.menderArtifact.verifiedWith === null
                          ? 'signed (not verified: the tenant has no artifact verification key)'
                          : `signed, verified with key ${f.menderArtifact.verifiedWith}`
                        : 'not signed'),
                  ]),
            ].join('\n'),
          firmwareResponse,
        );
      }),
    'firmledger firmware publish fw-1.1.0.bin --tenant acme --version 1.1.0 --type ESP32',
    'firmledger firmware publish release-2.mender --tenant acme',
  );
  example(
    firmware
      .command('list')
      .description('firmware of a tenant by id: version, device type, size, md5, CID')
      .addOption(tenantOption())
      .addOption(jsonOption())
      .action((o: { tenant: string; json?: boolean }) =>
        run(
          async (get) => get(FirmwareService).list(await tenantId(get, o.tenant)),
          !!o.json,
          (rows) => table(rows.map(firmwareResponse), ['id', 'version', 'device_type', 'size', 'md5', 'cid']),
          (rows) => rows.map(firmwareResponse),
        ),
      ),
    'firmledger firmware list --tenant acme',
  );
  example(
    firmware
      .command('rollback-target <id>')
      .description('mark a firmware as a rollback target: a rollout’s rollback policy may then name it (--off takes the mark away)')
      .addOption(tenantOption())
      .option('--off', 'take the mark away')
      .addOption(jsonOption())
      .action((id: string, o: { tenant: string; off?: boolean; json?: boolean }) =>
        run(
          async (get) => get(FirmwareService).setRollbackTarget(await tenantId(get, o.tenant), positiveInt('firmware id')(id), !o.off),
          !!o.json,
          (f) => `firmware ${f.id} (${f.version}, ${f.deviceType}) ${f.rollbackTarget ? 'is a rollback target' : 'is no rollback target'}`,
          firmwareResponse,
        ),
      ),
    'firmledger firmware rollback-target 1 --tenant acme',
  );
}

/**
 * The bytes of `source` passed through unchanged, showing how many were read so far on the
 * progress line (`publishing fw.bin: 3.0 of 8.0 MiB (37%)`), first at 0%, at most every
 * {@link PROGRESS_INTERVAL_MS}, and last when all were read.
 */
function withProgress(source: Readable, label: string, total: number): Readable {
  let read = 0;
  let shownAt = 0;
  const show = () => {
    shownAt = Date.now();
    showProgress(`${label}: ${mebibytes(read)} of ${mebibytes(total)} MiB (${total > 0 ? Math.floor((read / total) * 100) : 100}%)`);
  };
  show();
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      read += chunk.length;
      if (Date.now() - shownAt >= PROGRESS_INTERVAL_MS) show();
      done(null, chunk);
    },
    flush(done) {
      show();
      endProgress();
      done();
    },
  });
  // Errors of the file reach the service through `counter`, which pipeline destroys with them.
  return pipeline(source, counter, () => undefined);
}

/** Bytes as MiB with one decimal. */
function mebibytes(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}
