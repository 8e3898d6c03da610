import { Command, InvalidArgumentError, Option } from 'commander';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { ConfigError, loadConfig } from '#src/config/app-config.js';
import { LedgerService } from '#src/ledger/ledger.service.js';
import { FirmwareService } from '#src/firmware/firmware.service.js';
import { GroupService } from '#src/rollout/group.service.js';
import { RolloutPlanService, type RolloutView } from '#src/rollout/rollout-plan.service.js';
import { OperatorTokenService } from '#src/operator/operator-token.service.js';
import { OPERATOR_ROLES, type OperatorRole } from '#src/operator-account/operator-role.js';
import { TenantService } from '#src/tenant/tenant.service.js';
import { CliError, describeError, withServices } from './cli-context.js';
import { registerOperatorUserCommands } from './operator-user.command.js';
import { print, table } from './output.js';
import { formatSummary, simulate, simulatedMacs } from './simulate/simulator.js';

if (existsSync('.env')) process.loadEnvFile('.env');

const program = new Command('firmledger')
  .description('Firmware-rollout server for IoT fleets: operator commands on the configured database (DATA_DIR).')
  .showHelpAfterError()
  .configureOutput({ outputError: (text, write) => write(text) });

const json = new Option('--json', 'print the result as JSON');
const tenantOption = new Option('--tenant <tenant>', 'tenant id or name').makeOptionMandatory();

const positiveInt = (name: string) => (text: string) => {
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new InvalidArgumentError(`${name} must be a whole number ≥ 1`);
  return Number(text);
};

/** Runs a command body with the services, printing its result; expected errors exit 1 with one line. */
async function run<T>(
  work: (get: <S>(type: new (...args: never[]) => S) => S) => Promise<T>,
  asJson: boolean,
  human: (value: T) => string,
): Promise<void> {
  const result = await withServices((app) => work((type) => app.get(type)));
  print(result, asJson, human);
}

async function tenantId(get: <S>(type: new (...args: never[]) => S) => S, ref: string): Promise<number> {
  return (await get(TenantService).resolveTenant(ref)).id;
}

// tenant
const tenant = program.command('tenant').description('tenants (customers)');
tenant
  .command('create <name>')
  .description('create a tenant; its customer key is shown once')
  .addOption(json)
  .action((name: string, o: { json?: boolean }) =>
    run(
      (get) => get(TenantService).createTenant(name),
      !!o.json,
      (t) => `tenant ${t.id} "${t.name}"\ncustomer key: ${t.customerKey}\n(shown once: keep it; devices sign logins with it)`,
    ),
  );
tenant
  .command('list')
  .addOption(json)
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
  .addOption(json)
  .action((ref: string, o: { json?: boolean }) =>
    run(
      (get) => get(TenantService).rotateCustomerKey(ref),
      !!o.json,
      (t) =>
        `tenant ${t.id} "${t.name}"\nnew customer key: ${t.customerKey}\n(shown once: keep it; devices must sign logins with it from now on)`,
    ),
  );

// device-key
const deviceKey = program.command('device-key').description('device keys (shared by devices of one type)');
deviceKey
  .command('create')
  .addOption(tenantOption)
  .requiredOption('--type <dType>', 'device type, e.g. ESP32')
  .addOption(json)
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
  .addOption(tenantOption)
  .addOption(json)
  .action((key: string, o: { tenant: string; json?: boolean }) =>
    run(
      async (get) => get(TenantService).revokeDeviceKey(await tenantId(get, o.tenant), key),
      !!o.json,
      (k) => `device key ${k.id} revoked`,
    ),
  );
deviceKey
  .command('list')
  .addOption(tenantOption)
  .addOption(json)
  .action((o: { tenant: string; json?: boolean }) =>
    run(
      async (get) => get(TenantService).listDeviceKeys(await tenantId(get, o.tenant)),
      !!o.json,
      (rows) => table(rows, ['id', 'key', 'deviceType', 'revoked', 'createdAt']),
    ),
  );

// operator-token
const operatorToken = program.command('operator-token').description('bearer tokens of the operator REST API (OPERATOR_URL)');
operatorToken
  .command('create')
  .description('create an operator token; it is shown once and stored only as a hash')
  .requiredOption('--name <name>', 'who holds it, e.g. ci-pipeline')
  .addOption(new Option('--role <role>', 'admin (everything) or viewer (reads only)').choices(OPERATOR_ROLES).default('admin'))
  .addOption(json)
  .action((o: { name: string; role: OperatorRole; json?: boolean }) =>
    run(
      (get) => get(OperatorTokenService).create(o.name, o.role),
      !!o.json,
      (t) =>
        `operator token ${t.id} "${t.name}" (${t.role}): ${t.token}\n(shown once: keep it; send it as "Authorization: Bearer <token>")`,
    ),
  );
operatorToken
  .command('revoke <id>')
  .description('revoke an operator token: requests bearing it are refused at once')
  .addOption(json)
  .action((id: string, o: { json?: boolean }) =>
    run(
      (get) => get(OperatorTokenService).revoke(positiveInt('operator token id')(id)),
      !!o.json,
      (t) => `operator token ${t.id} "${t.name}" revoked`,
    ),
  );
operatorToken
  .command('list')
  .addOption(json)
  .action((o: { json?: boolean }) =>
    run(
      (get) => get(OperatorTokenService).list(),
      !!o.json,
      (rows) => table(rows, ['id', 'name', 'hint', 'role', 'revoked', 'createdAt']),
    ),
  );

registerOperatorUserCommands(program);

// firmware
const firmware = program.command('firmware').description('firmware artifacts');
firmware
  .command('publish <file>')
  .description('publish a binary: computes md5, sha256 and the IPFS CIDv0, stores it, records it on the ledger')
  .addOption(tenantOption)
  .requiredOption('--version <version>', 'firmware version, e.g. 1.2.0')
  .requiredOption('--type <dType>', 'device type it is built for, e.g. ESP32')
  .addOption(json)
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
  .addOption(tenantOption)
  .addOption(json)
  .action((o: { tenant: string; json?: boolean }) =>
    run(
      async (get) => get(FirmwareService).list(await tenantId(get, o.tenant)),
      !!o.json,
      (rows) => table(rows, ['id', 'version', 'deviceType', 'size', 'md5', 'cid']),
    ),
  );

// group
const group = program.command('group').description('device groups that rollouts target');
group
  .command('create <name>')
  .addOption(tenantOption)
  .addOption(json)
  .action((name: string, o: { tenant: string; json?: boolean }) =>
    run(
      async (get) => get(GroupService).create(await tenantId(get, o.tenant), name),
      !!o.json,
      (g) => `group ${g.id} "${g.name}"`,
    ),
  );
group
  .command('add <group> <mac...>')
  .description('add devices by mac (any notation; they may register later)')
  .addOption(tenantOption)
  .addOption(json)
  .action((ref: string, macs: string[], o: { tenant: string; json?: boolean }) =>
    run(
      async (get) => get(GroupService).addMembers(await tenantId(get, o.tenant), ref, macs),
      !!o.json,
      (g) => `group ${g.id} "${g.name}": ${g.members} members`,
    ),
  );
group
  .command('remove <group> <mac...>')
  .description('remove devices from a group by mac')
  .addOption(tenantOption)
  .addOption(json)
  .action((ref: string, macs: string[], o: { tenant: string; json?: boolean }) =>
    run(
      async (get) => get(GroupService).removeMembers(await tenantId(get, o.tenant), ref, macs),
      !!o.json,
      (g) => `group ${g.id} "${g.name}": ${g.members} members`,
    ),
  );
group
  .command('list')
  .addOption(tenantOption)
  .addOption(json)
  .action((o: { tenant: string; json?: boolean }) =>
    run(
      async (get) => get(GroupService).list(await tenantId(get, o.tenant)),
      !!o.json,
      (rows) => table(rows, ['id', 'name', 'members']),
    ),
  );

// rollout
const rolloutColumns: (keyof RolloutView)[] = [
  'id',
  'name',
  'status',
  'firmwareId',
  'groupId',
  'priority',
  'startDate',
  'targeted',
  'updated',
  'pending',
];
const rollout = program.command('rollout').description('rollouts: planned firmware updates');
rollout
  .command('create')
  .addOption(tenantOption)
  .requiredOption('--name <name>', 'rollout name')
  .requiredOption('--firmware <id>', 'firmware id', positiveInt('--firmware'))
  .requiredOption('--group <group>', 'group id or name')
  .option('--priority <n>', '1 is most urgent', positiveInt('--priority'), 1)
  .requiredOption('--start <date>', 'start date, "YYYY-MM-DD HH:MM:SS" UTC')
  .option('--downgrade', 'offer even to devices on a newer version')
  .addOption(json)
  .action(
    (o: {
      tenant: string;
      name: string;
      firmware: number;
      group: string;
      priority: number;
      start: string;
      downgrade?: boolean;
      json?: boolean;
    }) =>
      run(
        async (get) =>
          get(RolloutPlanService).create({
            tenantId: await tenantId(get, o.tenant),
            name: o.name,
            firmwareId: o.firmware,
            group: o.group,
            priority: o.priority,
            startDate: o.start,
            downgrade: !!o.downgrade,
          }),
        !!o.json,
        (r) => `rollout ${r.id} "${r.name}" created (${r.status}); start it with: firmledger rollout start ${r.id} --tenant ${o.tenant}`,
      ),
  );
for (const action of ['start', 'pause', 'resume', 'cancel'] as const) {
  rollout
    .command(`${action} <id>`)
    .addOption(tenantOption)
    .addOption(json)
    .action((id: string, o: { tenant: string; json?: boolean }) =>
      run(
        async (get) => get(RolloutPlanService).apply(await tenantId(get, o.tenant), positiveInt('rollout id')(id), action),
        !!o.json,
        (r) => `rollout ${r.id} is ${r.status}`,
      ),
    );
}
rollout
  .command('show <id>')
  .description('one rollout with its progress: targeted, updated, pending, last activity')
  .addOption(tenantOption)
  .addOption(json)
  .action((id: string, o: { tenant: string; json?: boolean }) =>
    run(
      async (get) => get(RolloutPlanService).get(await tenantId(get, o.tenant), positiveInt('rollout id')(id)),
      !!o.json,
      (r) =>
        `rollout ${r.id} "${r.name}": ${r.status}, firmware ${r.firmwareId}, group ${r.groupId}, priority ${r.priority}, start ${r.startDate}\n` +
        `targeted ${r.targeted}, updated ${r.updated}, pending ${r.pending}, last activity ${r.lastActivity ?? 'none'}`,
    ),
  );
rollout
  .command('list')
  .addOption(tenantOption)
  .addOption(json)
  .action((o: { tenant: string; json?: boolean }) =>
    run(
      async (get) => get(RolloutPlanService).list(await tenantId(get, o.tenant)),
      !!o.json,
      (rows) => table(rows, rolloutColumns),
    ),
  );

// ledger
program
  .command('ledger')
  .description('the hash-chained ledger')
  .command('verify')
  .description('recompute the chain; exits 1 naming the first entry that does not match')
  .addOption(json)
  .action(async (o: { json?: boolean }) => {
    const result = await withServices((app) => app.get(LedgerService).verify());
    print(result, !!o.json, (r: typeof result) =>
      r.ok ? `ledger ok: ${r.entries} entries, head ${r.head}` : `ledger BROKEN at entry ${r.firstBreak!.seq}: ${r.firstBreak!.reason}`,
    );
    if (!result.ok) process.exitCode = 1;
  });

// simulate
program
  .command('simulate')
  .description(
    'act as N field devices against a running server: login, register, next rollout, ledger lookup, download, verify, report success',
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
  .option('--print-macs', 'only print the macs the devices use, one per line (to put them in a group)')
  .addOption(json)
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
      },
      o['json'] ? undefined : (line) => process.stderr.write(`\r${line}`),
    );
    if (!o['json']) process.stderr.write('\n');
    print(summary, !!o['json'], formatSummary);
    if (Object.values(summary.failures).some((n) => n > 0)) process.exitCode = 1;
  });

// serve
program
  .command('serve')
  .description('start the server (same as npm start)')
  .action(async () => {
    await import('#src/main.js');
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`firmledger: ${describeError(error)}\n`);
  process.exitCode = error instanceof ConfigError ? 2 : 1;
}
