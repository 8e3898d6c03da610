import { InvalidArgumentError, type Command } from 'commander';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { canonicalIdentifier, INVALID_IDENTIFIER } from '#src/platform/common/device-identifier.js';
import { AUTH_SET_STATUSES, type AuthSetStatus } from '#src/domain/identity/device-auth-set.entity.js';
import { DeviceIdentityService, type AuthSetView } from '#src/domain/identity/device-identity.service.js';
import { authSetResponse } from '#src/operator/operator-responses.js';
import { CliError } from './cli-context.js';
import { example, jsonOption, run, tenantId, tenantOption, type ServiceGetter } from './command-kit.js';
import { table } from './output.js';

/** Auth sets listed by `device pending` (the REST API's largest page). */
const LIST_PAGE = 500;

/**
 * `firmledger device pending|accept|reject|preauthorize|decommission`: the identities of Mender
 * devices (docs/decisions.md §13), added to the `device` command.
 */
export function registerDeviceIdentityCommands(device: Command): void {
  example(
    device
      .command('pending')
      .description('Mender devices waiting to be accepted: auth set id, identifier, identity, key fingerprint and type')
      .addOption(tenantOption())
      .option('--status <status>', `list the auth sets in this state instead (${AUTH_SET_STATUSES.join(', ')})`, 'pending')
      .addOption(jsonOption())
      .action((o: { tenant: string; status: string; json?: boolean }) => {
        if (!(AUTH_SET_STATUSES as readonly string[]).includes(o.status)) {
          throw new InvalidArgumentError(`--status must be one of ${AUTH_SET_STATUSES.join(', ')}`);
        }
        return run(
          async (get) =>
            (
              await get(DeviceIdentityService).page(await tenantId(get, o.tenant), [o.status as AuthSetStatus], {
                offset: 0,
                limit: LIST_PAGE,
              })
            ).items,
          !!o.json,
          (rows) =>
            table(
              rows.map((r) => ({ ...authSetResponse(r), id_data: JSON.stringify(r.idData), fingerprint: r.fingerprint.slice(0, 16) })),
              ['id', 'identifier', 'status', 'key_type', 'fingerprint', 'device_type', 'id_data', 'created_at'],
            ),
          (rows) => rows.map(authSetResponse),
        );
      }),
    'firmledger device pending --tenant acme',
  );
  for (const [verb, explanation] of [
    ['accept', 'accept a Mender device: it authenticates with that key from now on (another key it had is rejected)'],
    ['reject', 'reject a Mender device’s key: it is refused, and its token stops working at once'],
  ] as const) {
    example(
      device
        .command(`${verb} <auth-set>`)
        .description(
          `${explanation}; <auth-set> is an auth set id (device pending), or the device's identifier when it has one pending key`,
        )
        .addOption(tenantOption())
        .addOption(jsonOption())
        .action((ref: string, o: { tenant: string; json?: boolean }) =>
          run(
            async (get) => {
              const tenant = await tenantId(get, o.tenant);
              const id = await authSetIdOf(get, tenant, ref);
              return verb === 'accept' ? get(DeviceIdentityService).accept(tenant, id) : get(DeviceIdentityService).reject(tenant, id);
            },
            !!o.json,
            (s) => `auth set ${s.id} of ${s.identifier} (${s.keyType} key ${s.fingerprint.slice(0, 16)}…): ${s.status}`,
            authSetResponse,
          ),
        ),
      `firmledger device ${verb} 4 --tenant acme`,
      `firmledger device ${verb} 02:00:00:00:00:01 --tenant acme`,
    );
  }
  example(
    device
      .command('preauthorize')
      .description('admit a Mender device beforehand: its identity (--mac, or --id-data) and public key are accepted on its first request')
      .addOption(tenantOption())
      .option('--mac <mac>', 'its mac: its identity is {"mac": "<mac>"} (the device may send more attributes; the mac names it)')
      .option('--id-data <json>', 'or its whole identity as JSON, as its identity script prints it: {"serial":"SN-1"}')
      .requiredOption('--public-key <file>', 'its public key, PEM (RSA, ECDSA or Ed25519)')
      .addOption(jsonOption())
      .action((o: { tenant: string; mac?: string; idData?: string; publicKey: string; json?: boolean }) => {
        const publicKey = readFile(o.publicKey);
        let idData: unknown;
        if (o.idData !== undefined) {
          try {
            idData = JSON.parse(o.idData);
          } catch {
            throw new InvalidArgumentError('--id-data must be JSON, e.g. {"serial":"SN-1"}');
          }
        }
        return run(
          async (get) =>
            get(DeviceIdentityService).preauthorize({ tenantId: await tenantId(get, o.tenant), mac: o.mac, idData, publicKey }),
          !!o.json,
          (s) => `auth set ${s.id} of ${s.identifier} (${s.keyType} key ${s.fingerprint.slice(0, 16)}…): ${s.status}`,
          authSetResponse,
        );
      }),
    'firmledger device preauthorize --tenant acme --mac 02:00:00:00:00:01 --public-key device.pub.pem',
  );
  example(
    device
      .command('decommission <device>')
      .description('take a Mender device (identifier) out of service: every key of its identity is refused until one is accepted again')
      .addOption(tenantOption())
      .addOption(jsonOption())
      .action((ref: string, o: { tenant: string; json?: boolean }) => {
        const identifier = canonicalIdentifier(ref);
        if (identifier === null) throw new InvalidArgumentError(INVALID_IDENTIFIER);
        return run(
          async (get) => get(DeviceIdentityService).decommission(await tenantId(get, o.tenant), identifier),
          !!o.json,
          (sets) => `device ${identifier} decommissioned (${sets.length} auth set(s))`,
          (sets) => sets.map(authSetResponse),
        );
      }),
    'firmledger device decommission 02:00:00:00:00:01 --tenant acme',
  );
}

/**
 * The auth set a reference names: an id (up to 10 digits), or the identifier of a device with
 * exactly one pending auth set.
 * @throws CliError when the identifier has none or several pending.
 */
async function authSetIdOf(get: ServiceGetter, tenant: number, ref: string): Promise<number> {
  if (/^\d{1,10}$/.test(ref)) return Number(ref);
  const identifier = canonicalIdentifier(ref);
  if (identifier === null) throw new CliError(`${ref} is neither an auth set id nor a device identifier`);
  const pending: AuthSetView[] = (await get(DeviceIdentityService).setsOf(tenant, identifier)).filter((s) => s.status === 'pending');
  if (pending.length === 1) return pending[0].id;
  throw new CliError(
    pending.length === 0
      ? `device ${identifier} has no pending auth set`
      : `device ${identifier} has ${pending.length} pending auth sets (${pending.map((s) => s.id).join(', ')}): name one by id`,
  );
}

/** A small text file given on the command line. @throws CliError when it is not one. */
function readFile(file: string): string {
  if (!existsSync(file) || !statSync(file).isFile()) throw new CliError(`no such file: ${file}`);
  return readFileSync(file, 'utf8');
}
