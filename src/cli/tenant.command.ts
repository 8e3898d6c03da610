import type { Command } from 'commander';
import { TenantService } from '#src/tenant/tenant.service.js';
import { jsonOption, run } from './command-kit.js';
import { table } from './output.js';

/** `firmledger tenant create|list|rotate-key`: tenants (customers) and their customer keys. */
export function registerTenantCommands(program: Command): void {
  const tenant = program.command('tenant').description('tenants (customers)');
  tenant
    .command('create <name>')
    .description('create a tenant; its customer key is shown once')
    .addOption(jsonOption())
    .action((name: string, o: { json?: boolean }) =>
      run(
        (get) => get(TenantService).createTenant(name),
        !!o.json,
        (t) => `tenant ${t.id} "${t.name}"\ncustomer key: ${t.customerKey}\n(shown once: keep it; devices sign logins with it)`,
      ),
    );
  tenant
    .command('list')
    .addOption(jsonOption())
    .action((o: { json?: boolean }) =>
      run(
        (get) => get(TenantService).listTenants(),
        !!o.json,
        (rows) => table(rows, ['id', 'name', 'createdAt']),
      ),
    );
  tenant
    .command('rotate-key <tenant>')
    .description(
      'replace the customer key of a tenant (id or name) with a new random one, shown once; logins signed with the old key are ' +
        'refused at once, device tokens already issued stay valid until they expire',
    )
    .addOption(jsonOption())
    .action((ref: string, o: { json?: boolean }) =>
      run(
        (get) => get(TenantService).rotateCustomerKey(ref),
        !!o.json,
        (t) =>
          `tenant ${t.id} "${t.name}"\nnew customer key: ${t.customerKey}\n(shown once: keep it; devices must sign logins with it from now on)`,
      ),
    );
}
