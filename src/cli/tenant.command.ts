import { InvalidArgumentError, type Command } from 'commander';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { CliError } from './cli-context.js';
import { INVALID_POLLING_SLEEP, parsePollingSleep } from '#src/domain/tenant/ddi-polling.js';
import { tenantResponse, tenantWithKeyResponse } from '#src/operator/operator-responses.js';
import { TenantService } from '#src/domain/tenant/tenant.service.js';
import { example, jsonOption, run } from './command-kit.js';
import { table } from './output.js';

/** `firmledger tenant create|list|rotate-key`: tenants (customers) and their customer keys. */
export function registerTenantCommands(program: Command): void {
  const tenant = example(
    program.command('tenant').description('tenants (customers): each has its own devices, keys, firmware and rollouts'),
    'firmledger tenant create acme',
    'firmledger tenant list',
  );
  example(
    tenant
      .command('create <name>')
      .description('create a tenant; its customer key is shown once')
      .addOption(jsonOption())
      .action((name: string, o: { json?: boolean }) =>
        run(
          (get) => get(TenantService).createTenant(name),
          !!o.json,
          (t) => `tenant ${t.id} "${t.name}"\ncustomer key: ${t.customerKey}\n(shown once: keep it; devices sign logins with it)`,
          tenantWithKeyResponse,
        ),
      ),
    'firmledger tenant create acme',
  );
  example(
    tenant
      .command('list')
      .description('tenants by id (never their customer keys)')
      .addOption(jsonOption())
      .action((o: { json?: boolean }) =>
        run(
          (get) => get(TenantService).listTenants(),
          !!o.json,
          (rows) => table(rows.map(tenantResponse), ['id', 'name', 'created_at']),
          (rows) => rows.map(tenantResponse),
        ),
      ),
    'firmledger tenant list --json',
  );
  example(
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
          tenantWithKeyResponse,
        ),
      ),
    'firmledger tenant rotate-key acme',
  );
  example(
    tenant
      .command('set-ddi-polling <tenant> <sleep>')
      .description('how often the tenant’s hawkBit DDI devices poll (HH:MM:SS, default 00:05:00), from their next poll on')
      .addOption(jsonOption())
      .action((ref: string, sleep: string, o: { json?: boolean }) => {
        const seconds = parsePollingSleep(sleep);
        if (seconds === null) throw new InvalidArgumentError(INVALID_POLLING_SLEEP);
        return run(
          (get) => get(TenantService).setDdiPolling(ref, seconds),
          !!o.json,
          (t) => `tenant ${t.id} "${t.name}": DDI devices poll every ${tenantResponse(t).ddi_polling_sleep}`,
          tenantResponse,
        );
      }),
    'firmledger tenant set-ddi-polling acme 00:01:00',
  );
  example(
    tenant
      .command('set-artifact-key <tenant> <file>')
      .description(
        'the PEM public key (RSA or ECDSA) the tenant’s Mender artifacts must be signed with: from now on an artifact is published ' +
          'only when its signature verifies with it',
      )
      .addOption(jsonOption())
      .action((ref: string, file: string, o: { json?: boolean }) => {
        if (!existsSync(file) || !statSync(file).isFile()) throw new CliError(`no such file: ${file}`);
        const pem = readFileSync(file, 'utf8');
        return run(
          (get) => get(TenantService).setArtifactVerifyKey(ref, pem),
          !!o.json,
          (t) => `tenant ${t.id} "${t.name}": Mender artifacts must be signed with key ${t.artifactVerifyKeyFingerprint ?? ''}`,
          tenantResponse,
        );
      }),
    'firmledger tenant set-artifact-key acme artifact-verify.pem',
  );
  example(
    tenant
      .command('clear-artifact-key <tenant>')
      .description('remove the tenant’s artifact verification key: Mender artifacts are published signed or not')
      .addOption(jsonOption())
      .action((ref: string, o: { json?: boolean }) =>
        run(
          (get) => get(TenantService).setArtifactVerifyKey(ref, null),
          !!o.json,
          (t) => `tenant ${t.id} "${t.name}": no artifact verification key`,
          tenantResponse,
        ),
      ),
    'firmledger tenant clear-artifact-key acme',
  );
}
