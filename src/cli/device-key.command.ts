import type { Command } from 'commander';
import { TenantService } from '#src/tenant/tenant.service.js';
import { jsonOption, run, tenantId, tenantOption } from './command-kit.js';
import { table } from './output.js';

/** `firmledger device-key create|revoke|list`: device keys, shared by the devices of one type. */
export function registerDeviceKeyCommands(program: Command): void {
  const deviceKey = program.command('device-key').description('device keys (shared by devices of one type)');
  deviceKey
    .command('create')
    .addOption(tenantOption())
    .requiredOption('--type <dType>', 'device type, e.g. ESP32')
    .addOption(jsonOption())
    .action((o: { tenant: string; type: string; json?: boolean }) =>
      run(
        async (get) => get(TenantService).createDeviceKey(await tenantId(get, o.tenant), o.type),
        !!o.json,
        (k) => `device key ${k.id} (${k.deviceType}): ${k.key}`,
      ),
    );
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
      ),
    );
  deviceKey
    .command('list')
    .addOption(tenantOption())
    .addOption(jsonOption())
    .action((o: { tenant: string; json?: boolean }) =>
      run(
        async (get) => get(TenantService).listDeviceKeys(await tenantId(get, o.tenant)),
        !!o.json,
        (rows) => table(rows, ['id', 'key', 'deviceType', 'revoked', 'createdAt']),
      ),
    );
}
