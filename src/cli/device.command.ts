import { InvalidArgumentError, Option, type Command } from 'commander';
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { DeviceImportRejected, DeviceImportService } from '#src/domain/device-import/device-import.service.js';
import type { ImportFormat } from '#src/domain/device-import/import-rows.js';
import { canonicalIdentifier, INVALID_IDENTIFIER } from '#src/platform/common/device-identifier.js';
import { DeviceService, type DeviceView, type DeviceWithToken } from '#src/domain/device/device.service.js';
import { DeviceLabelService, labelTexts } from '#src/domain/device/device-labels.service.js';
import { FleetService } from '#src/domain/rollout/fleet.service.js';
import type { Decision } from '#src/domain/rollout/policy/decision.js';
import {
  deviceDecisionsResponse,
  deviceDetailResponse,
  deviceImportResponse,
  deviceSummaryResponse,
  deviceWithTokenResponse,
} from '#src/operator/operator-responses.js';
import { CliError } from './cli-context.js';
import { example, jsonOption, run, tenantId, tenantOption, type ServiceGetter } from './command-kit.js';
import { endProgress, note, showProgress, table } from './output.js';
import { registerDeviceIdentityCommands } from './device-identity.command.js';

/** How often import progress is shown, ms (as `firmware publish`). */
const PROGRESS_INTERVAL_MS = 250;

/** Devices listed per page by `device list` (the REST API's largest page). */
const LIST_PAGE = 500;

/** `firmledger device create|rotate-token|import|list|show|label`: devices, and the target tokens of hawkBit DDI devices. */
export function registerDeviceCommands(program: Command): void {
  const device = example(
    program
      .command('device')
      .description(
        'devices of a tenant: asvin devices register themselves; hawkBit DDI devices are created here with a target token, ' +
          'imported from a hawkBit server, or register by polling with a gateway token (a device key)',
      ),
    'firmledger device create --tenant acme --controller-id pump-7 --device-type pump-board',
    'firmledger device list --tenant acme',
  );
  example(
    device
      .command('create')
      .description('create a hawkBit DDI device; its target token is shown once (only its SHA-256 is kept)')
      .addOption(tenantOption())
      .requiredOption('--controller-id <id>', "its controller id: 1 to 256 letters, digits or -._~!$&'()*+,;=:@")
      .requiredOption('--device-type <dType>', 'its device type: which firmware it is offered')
      .option('--name <name>', 'a name (default: the controller id)')
      .option('--target-token <token>', 'keep this target token (e.g. its security token on a hawkBit server) instead of a new one')
      .addOption(jsonOption())
      .action((o: { tenant: string; controllerId: string; deviceType: string; name?: string; targetToken?: string; json?: boolean }) =>
        run(
          async (get) =>
            get(DeviceService).create({
              tenantId: await tenantId(get, o.tenant),
              controllerId: o.controllerId,
              deviceType: o.deviceType,
              name: o.name,
              targetToken: o.targetToken,
            }),
          !!o.json,
          (d) => `${describeCreated(d)}\n(shown once: configure the device with it; rotate it with firmledger device rotate-token)`,
          deviceWithTokenResponse,
        ),
      ),
    'firmledger device create --tenant acme --controller-id pump-7 --device-type pump-board --json',
  );
  example(
    device
      .command('rotate-token <device>')
      .description('give a device (controller id or mac) a new target token, shown once; the old one stops working at once')
      .addOption(tenantOption())
      .addOption(jsonOption())
      .action((ref: string, o: { tenant: string; json?: boolean }) =>
        run(
          async (get) => get(DeviceService).rotateTargetToken(await tenantId(get, o.tenant), identifierOf(ref)),
          !!o.json,
          (d) => `${describeCreated(d)}\n(shown once: the old token no longer works)`,
          deviceWithTokenResponse,
        ),
      ),
    'firmledger device rotate-token pump-7 --tenant acme',
  );
  example(
    device
      .command('import <file>')
      .description(
        'import devices in bulk: FILE.csv (a header line, then mac or controller_id, device_type, firmware_version, name, group, ' +
          'attributes as JSON, protocol, target_token) or FILE.ndjson / FILE.jsonl (one JSON object a line, the same fields), read ' +
          'as a stream, all or nothing, bad rows named by line, progress on stderr (not with --json), one ledger entry ' +
          '(docs/decisions.md §14); or FILE.json: a hawkBit server’s targets (the JSON of GET /rest/v1/targets: {"content": [...]} ' +
          'or an array), each with its controllerId, name and securityToken (kept as its target token, so the device needs no ' +
          'change; a new one when absent). Devices the tenant has are skipped',
      )
      .addOption(tenantOption())
      .addOption(new Option('--format <format>', 'the file’s format (default: by its extension)').choices([...IMPORT_FILE_FORMATS]))
      .option('--device-type <dType>', 'the device type of every imported device (hawkBit targets only, and required there)')
      .addOption(jsonOption())
      .action((file: string, o: { tenant: string; format?: ImportFileFormat; deviceType?: string; json?: boolean }) => {
        const format = o.format ?? formatOf(file);
        if (format !== 'hawkbit') {
          if (o.deviceType !== undefined)
            throw new CliError('--device-type is for hawkBit targets (FILE.json): a CSV or NDJSON row names its own');
          return importRows(file, format, o.tenant, !!o.json);
        }
        if (o.deviceType === undefined) throw new CliError('--device-type is required to import hawkBit targets');
        const deviceType = o.deviceType;
        const targets = readTargets(file);
        return run(
          (get) => importTargets(get, o.tenant, deviceType, targets),
          !!o.json,
          (r) =>
            [
              table(
                r.created.map((d) => ({ ...deviceWithTokenResponse(d) })),
                ['mac', 'name', 'device_type', 'target_token'],
              ),
              `imported ${r.created.length} device(s); skipped ${r.skipped.length} the tenant has${r.skipped.length ? `: ${r.skipped.join(', ')}` : ''}`,
            ].join('\n'),
          (r) => ({ created: r.created.map(deviceWithTokenResponse), skipped: r.skipped }),
        );
      }),
    'firmledger device import devices.csv --tenant acme',
    'firmledger device import devices.ndjson --tenant acme --json',
    'firmledger device import targets.json --tenant acme --device-type pump-board',
  );
  example(
    device
      .command('list')
      .description('the devices of a tenant by identifier: protocol, type, version, last seen')
      .addOption(tenantOption())
      .addOption(jsonOption())
      .action((o: { tenant: string; json?: boolean }) =>
        run(
          async (get) => allDevices(get, await tenantId(get, o.tenant)),
          !!o.json,
          (rows) => table(rows.map(deviceSummaryResponse), ['mac', 'name', 'protocol', 'device_type', 'firmware_version', 'last_seen_at']),
          (rows) => rows.map(deviceSummaryResponse),
        ),
      ),
    'firmledger device list --tenant acme --json',
  );
  example(
    device
      .command('show <device>')
      .description('one device (controller id or mac): its groups, attributes and rollouts')
      .addOption(tenantOption())
      .addOption(jsonOption())
      .action((ref: string, o: { tenant: string; json?: boolean }) =>
        run(
          async (get) => get(FleetService).describeDevice(await tenantId(get, o.tenant), identifierOf(ref)),
          !!o.json,
          (d) =>
            [
              `device ${d.mac} "${d.name}": ${d.protocol}, ${d.deviceType}, version ${d.firmwareVersion || '(none reported)'}`,
              `target token: ${d.hasTargetToken ? 'yes' : 'no'}; last seen ${d.lastSeenAt ?? 'never'}; created ${d.createdAt}`,
              `groups: ${d.groups.map((g) => g.name).join(', ') || '(none)'}`,
              `labels: ${d.labels.join(', ') || '(none)'}`,
              `attributes: ${
                d.attributes === null
                  ? '(none reported)'
                  : Object.entries(d.attributes)
                      .map(([k, v]) => `${k}=${v}`)
                      .join(', ')
              }`,
              ...d.rollouts.map((r) => `rollout ${r.id} "${r.name}" (${r.status}) to ${r.version}: ${r.state ?? 'no state'}`),
            ].join('\n'),
          deviceDetailResponse,
        ),
      ),
    'firmledger device show pump-7 --tenant acme',
  );
  example(
    device
      .command('why <device>')
      .description(
        'why a device (controller id or mac) gets, waits for or skips each active or paused rollout of its groups: ' +
          'offer, wait (and until when), skip or settled, with the reason',
      )
      .addOption(tenantOption())
      .addOption(jsonOption())
      .action((ref: string, o: { tenant: string; json?: boolean }) =>
        run(
          async (get) => get(FleetService).decisions(await tenantId(get, o.tenant), identifierOf(ref)),
          !!o.json,
          (decisions) =>
            decisions.length === 0
              ? '(no active or paused rollout names a group of this device)'
              : decisions.map((d) => `rollout ${d.rolloutId} "${d.rolloutName}": ${decisionText(d.decision)}`).join('\n'),
          deviceDecisionsResponse,
        ),
      ),
    'firmledger device why AC:67:B2:01:02:03 --tenant acme',
  );
  example(
    device
      .command('label <device...>')
      .description('add labels (key=value or a plain word) to devices and remove label keys (docs/decisions.md §10.3)')
      .addOption(tenantOption())
      .option('--add <label>', 'a label to add: key=value or key (repeatable)', collect, [])
      .option('--remove <key>', 'a label key to remove (repeatable)', collect, [])
      .addOption(jsonOption())
      .action((refs: string[], o: { tenant: string; add: string[]; remove: string[]; json?: boolean }) =>
        run(
          async (get) => {
            const macs = refs.map(identifierOf);
            const labels = await get(DeviceLabelService).addRemove(await tenantId(get, o.tenant), macs, o.add, o.remove);
            return macs.map((mac, i) => ({ mac, labels: labelTexts(labels[i]) }));
          },
          !!o.json,
          (rows) => rows.map((row) => `${row.mac}: ${row.labels.join(', ') || '(no labels)'}`).join('\n'),
          (rows) => rows,
        ),
      ),
    'firmledger device label pump-7 AC:67:B2:01:02:03 --add site=lab --add beta --remove stage --tenant acme',
  );
  registerDeviceIdentityCommands(device);
}

/** Collects a repeatable option's values. */
const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** A device identifier given on the command line (a mac in any notation, or a controller id). */
function identifierOf(text: string): string {
  const identifier = canonicalIdentifier(text);
  if (identifier === null) throw new InvalidArgumentError(INVALID_IDENTIFIER);
  return identifier;
}

function describeCreated(d: DeviceWithToken): string {
  return `device ${d.device.mac} (${d.device.deviceType})\ntarget token: ${d.targetToken}`;
}

/** Every device of the tenant, a page at a time. */
async function allDevices(get: ServiceGetter, tenant: number): Promise<DeviceView[]> {
  const rows: DeviceView[] = [];
  for (let offset = 0; ; offset += LIST_PAGE) {
    const page = await get(FleetService).listDevices(tenant, {}, { offset, limit: LIST_PAGE });
    rows.push(...page.items);
    if (rows.length >= page.total || page.items.length === 0) return rows;
  }
}

/** The formats `device import` reads: bulk rows (docs/decisions.md §14), or a hawkBit server's targets. */
const IMPORT_FILE_FORMATS = ['csv', 'ndjson', 'hawkbit'] as const;
type ImportFileFormat = (typeof IMPORT_FILE_FORMATS)[number];

/** The format a file's extension names. @throws CliError for another extension. */
function formatOf(file: string): ImportFileFormat {
  const extension = extname(file).toLowerCase();
  if (extension === '.csv') return 'csv';
  if (extension === '.ndjson' || extension === '.jsonl') return 'ndjson';
  if (extension === '.json') return 'hawkbit';
  throw new CliError(`cannot tell the format of ${file} by its extension (.csv, .ndjson, .jsonl, .json): give --format`);
}

/**
 * `device import FILE.csv|FILE.ndjson`: the rows streamed from the file into the bulk import
 * (no size limit: the file is the operator's own), its progress on stderr
 * (`importing devices.csv: 120000 rows`, at most every {@link PROGRESS_INTERVAL_MS}).
 */
function importRows(file: string, format: ImportFormat, tenantRef: string, json: boolean): Promise<void> {
  if (!existsSync(file) || !statSync(file).isFile()) throw new CliError(`no such file: ${file}`);
  const label = `importing ${basename(file)}`;
  let shownAt = 0;
  return run(
    async (get) => {
      const tenant = await tenantId(get, tenantRef);
      showProgress(`${label}: 0 rows`);
      try {
        return await get(DeviceImportService).import({
          tenantId: tenant,
          format,
          input: createReadStream(file),
          maxBytes: Number.MAX_SAFE_INTEGER,
          onProgress: (rows, last) => {
            if (!last && Date.now() - shownAt < PROGRESS_INTERVAL_MS) return;
            shownAt = Date.now();
            showProgress(`${label}: ${rows} rows${last ? ', writing' : ''}`);
          },
        });
      } catch (error) {
        if (error instanceof DeviceImportRejected) throw new CliError(error.rowErrors.map((e) => e.message).join('\n'));
        throw error;
      } finally {
        endProgress();
      }
    },
    json,
    (r) =>
      `imported ${r.created} device(s); skipped ${r.skipped} the tenant has` +
      `${r.skippedDevices.length ? `: ${r.skippedDevices.join(', ')}${r.skipped > r.skippedDevices.length ? ', …' : ''}` : ''}\nsha256 ${r.sha256}`,
    deviceImportResponse,
  );
}

/** A target of a hawkBit server as its management API lists it. */
interface HawkbitTarget {
  controllerId: string;
  name?: string;
  securityToken?: string;
}

/** The targets of a hawkBit export file. @throws CliError for a file that is not one. */
function readTargets(file: string): HawkbitTarget[] {
  if (!existsSync(file) || !statSync(file).isFile()) throw new CliError(`no such file: ${file}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new CliError(`${file} is not JSON`);
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { content?: unknown } | null)?.content;
  if (!Array.isArray(list)) throw new CliError(`${file} holds neither an array of targets nor {"content": [...]}`);
  return list.map((target: unknown, index) => {
    const t = target as Partial<Record<keyof HawkbitTarget, unknown>> | null;
    const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
    const controllerId = text(t?.controllerId);
    if (controllerId === undefined) throw new CliError(`target ${index + 1} of ${file} has no controllerId`);
    return { controllerId, name: text(t?.name), securityToken: text(t?.securityToken) };
  });
}

/** Creates the devices of `targets` the tenant does not have; a bad target stops the import with its controller id named. */
async function importTargets(
  get: ServiceGetter,
  tenantRef: string,
  deviceType: string,
  targets: HawkbitTarget[],
): Promise<{ created: DeviceWithToken[]; skipped: string[] }> {
  const tenant = await tenantId(get, tenantRef);
  const created: DeviceWithToken[] = [];
  const skipped: string[] = [];
  for (const target of targets) {
    const identifier = canonicalIdentifier(target.controllerId);
    if (identifier !== null && (await get(DeviceService).find(tenant, identifier))) {
      skipped.push(identifier);
      continue;
    }
    try {
      created.push(
        await get(DeviceService).create({
          tenantId: tenant,
          controllerId: target.controllerId,
          deviceType,
          name: target.name?.slice(0, 128),
          targetToken: target.securityToken,
        }),
      );
    } catch (error) {
      throw new CliError(`target "${target.controllerId}": ${(error as Error).message} (${created.length} imported before it)`);
    }
    if (created.length % 100 === 0) note(`imported ${created.length} of ${targets.length}`);
  }
  return { created, skipped };
}

/** A decision in words: its kind, reason and, for a wait that ends, when (`wait: outside the maintenance windows, until 2026-12-08T02:00:00.000Z`). */
function decisionText(decision: Decision): string {
  return `${decision.kind}: ${decision.reason}${decision.until === null ? '' : `, until ${new Date(decision.until).toISOString()}`}`;
}
