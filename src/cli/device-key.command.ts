import { InvalidArgumentError, type Command } from 'commander';
import { deviceKeyResponse } from '#src/operator/operator-responses.js';
import { TenantService } from '#src/domain/tenant/tenant.service.js';
import { example, jsonOption, run, tenantId, tenantOption } from './command-kit.js';
import { table } from './output.js';

/** `firmledger device-key create|revoke|auto-accept|ddi-gateway|list`: device keys, shared by the devices of one type. */
export function registerDeviceKeyCommands(program: Command): void {
  const deviceKey = example(
    program.command('device-key').description('device keys (shared by devices of one type)'),
    'firmledger device-key create --tenant acme --type ESP32',
    'firmledger device-key list --tenant acme',
  );
  example(
    deviceKey
      .command('create')
      .description('create a device key for devices of one type (dType); devices send it at login')
      .addOption(tenantOption())
      .requiredOption('--type <dType>', 'device type, e.g. ESP32')
      .option(
        '--single-device',
        'the key belongs to one device: each login (key, timestamp) is accepted once; without it devices sharing the key may send identical logins',
      )
      .option('--auto-accept', 'Mender devices new to the tenant that use the key as their tenant token are accepted at once, not pending')
      .option('--ddi-gateway', 'the key is a hawkBit DDI gateway token: it speaks for every DDI device of the tenant (GatewayToken)')
      .addOption(jsonOption())
      .action((o: { tenant: string; type: string; singleDevice?: boolean; autoAccept?: boolean; ddiGateway?: boolean; json?: boolean }) =>
        run(
          async (get) =>
            get(TenantService).createDeviceKey(await tenantId(get, o.tenant), o.type, undefined, {
              singleDevice: !!o.singleDevice,
              autoAccept: !!o.autoAccept,
              ddiGateway: !!o.ddiGateway,
            }),
          !!o.json,
          (k) =>
            `device key ${k.id} (${k.deviceType}${k.singleDevice ? ', single device' : ''}${k.autoAccept ? ', accepts new Mender devices' : ''}` +
            `${k.ddiGateway ? ', DDI gateway token' : ''}): ${k.key}`,
          deviceKeyResponse,
        ),
      ),
    'firmledger device-key create --tenant acme --type ESP32',
    'firmledger device-key create --tenant acme --type ESP32 --single-device',
    'firmledger device-key create --tenant acme --type pump-board --ddi-gateway',
  );
  example(
    deviceKey
      .command('revoke <key>')
      .description('revoke a device key (by id or key): its logins and tokens stop working')
      .addOption(tenantOption())
      .addOption(jsonOption())
      .action((key: string, o: { tenant: string; json?: boolean }) =>
        run(
          async (get) => get(TenantService).revokeDeviceKey(await tenantId(get, o.tenant), key),
          !!o.json,
          (k) => `device key ${k.id} revoked`,
          deviceKeyResponse,
        ),
      ),
    'firmledger device-key revoke 3 --tenant acme',
  );
  example(
    deviceKey
      .command('auto-accept <key> <on|off>')
      .description('whether Mender devices new to the tenant that use the key (id or key) as their tenant token are accepted at once')
      .addOption(tenantOption())
      .addOption(jsonOption())
      .action((key: string, setting: string, o: { tenant: string; json?: boolean }) => {
        if (setting !== 'on' && setting !== 'off') throw new InvalidArgumentError('say on or off');
        return run(
          async (get) => get(TenantService).setAutoAccept(await tenantId(get, o.tenant), key, setting === 'on'),
          !!o.json,
          (k) => `device key ${k.id}: new Mender devices ${k.autoAccept ? 'are accepted at once' : 'wait, pending, for an operator'}`,
          deviceKeyResponse,
        );
      }),
    'firmledger device-key auto-accept 3 on --tenant acme',
  );
  example(
    deviceKey
      .command('ddi-gateway <key> <on|off>')
      .description('whether the key (id or key) is a hawkBit DDI gateway token, speaking for every DDI device of the tenant')
      .addOption(tenantOption())
      .addOption(jsonOption())
      .action((key: string, setting: string, o: { tenant: string; json?: boolean }) => {
        if (setting !== 'on' && setting !== 'off') throw new InvalidArgumentError('say on or off');
        return run(
          async (get) => get(TenantService).setDdiGateway(await tenantId(get, o.tenant), key, setting === 'on'),
          !!o.json,
          (k) => `device key ${k.id}: ${k.ddiGateway ? 'a DDI gateway token' : 'not a DDI gateway token'}`,
          deviceKeyResponse,
        );
      }),
    'firmledger device-key ddi-gateway 3 on --tenant acme',
  );
  example(
    deviceKey
      .command('list')
      .description('device keys of a tenant by id, revoked ones included')
      .addOption(tenantOption())
      .addOption(jsonOption())
      .action((o: { tenant: string; json?: boolean }) =>
        run(
          async (get) => get(TenantService).listDeviceKeys(await tenantId(get, o.tenant)),
          !!o.json,
          (rows) =>
            table(rows.map(deviceKeyResponse), [
              'id',
              'key',
              'device_type',
              'single_device',
              'auto_accept',
              'ddi_gateway',
              'revoked',
              'created_at',
            ]),
          (rows) => rows.map(deviceKeyResponse),
        ),
      ),
    'firmledger device-key list --tenant acme',
  );
}
