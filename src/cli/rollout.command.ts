import type { Command } from 'commander';
import { RolloutPlanService, type RolloutView } from '#src/rollout/rollout-plan.service.js';
import { jsonOption, positiveInt, run, tenantId, tenantOption } from './command-kit.js';
import { table } from './output.js';

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

/** `firmledger rollout create|start|pause|resume|cancel|show|list`: planned firmware updates. */
export function registerRolloutCommands(program: Command): void {
  const rollout = program.command('rollout').description('rollouts: planned firmware updates');
  rollout
    .command('create')
    .addOption(tenantOption())
    .requiredOption('--name <name>', 'rollout name')
    .requiredOption('--firmware <id>', 'firmware id', positiveInt('--firmware'))
    .requiredOption('--group <group>', 'group id or name')
    .option('--priority <n>', '1 is most urgent', positiveInt('--priority'), 1)
    .requiredOption('--start <date>', 'start date, "YYYY-MM-DD HH:MM:SS" UTC')
    .option('--downgrade', 'offer even to devices on a newer version')
    .addOption(jsonOption())
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
      .addOption(tenantOption())
      .addOption(jsonOption())
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
    .addOption(tenantOption())
    .addOption(jsonOption())
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
    .addOption(tenantOption())
    .addOption(jsonOption())
    .action((o: { tenant: string; json?: boolean }) =>
      run(
        async (get) => get(RolloutPlanService).list(await tenantId(get, o.tenant)),
        !!o.json,
        (rows) => table(rows, rolloutColumns),
      ),
    );
}
