import type { Command } from 'commander';
import { rolloutResponse, type RolloutResponse } from '#src/operator/dto/rollout.dto.js';
import { RolloutPlanService } from '#src/rollout/rollout-plan.service.js';
import { example, jsonOption, naming, positiveInt, run, tenantId, tenantOption } from './command-kit.js';
import { table } from './output.js';

const rolloutColumns: (keyof RolloutResponse)[] = [
  'id',
  'name',
  'status',
  'firmware_id',
  'group_id',
  'priority',
  'start_date',
  'targeted',
  'updated',
  'pending',
];

/** What each lifecycle command does, for its help. */
const ACTIONS = {
  start: 'start a draft rollout: devices of its group are offered its firmware from its start date',
  pause: 'pause an active rollout: devices are no longer offered it until it is resumed',
  resume: 'resume a paused rollout',
  cancel: 'cancel a rollout for good (a draft, active or paused one)',
} as const;

/** `firmledger rollout create|start|pause|resume|cancel|show|list`: planned firmware updates. */
export function registerRolloutCommands(program: Command): void {
  const rollout = example(
    program.command('rollout').description('rollouts: planned firmware updates'),
    'firmledger rollout create --tenant acme --name "1.1.0 to field test" --firmware 1 --group field-test --start "2026-01-01 00:00:00"',
    'firmledger rollout start 1 --tenant acme',
    'firmledger rollout list --tenant acme',
  );
  example(
    rollout
      .command('create')
      .description('plan a rollout of one firmware to one group (status draft; "rollout start" starts it)')
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
              naming(
                get(RolloutPlanService).create({
                  tenantId: await tenantId(get, o.tenant),
                  name: o.name,
                  firmwareId: o.firmware,
                  group: o.group,
                  priority: o.priority,
                  startDate: o.start,
                  downgrade: !!o.downgrade,
                }),
                { Firmware: o.firmware },
              ),
            !!o.json,
            (r) =>
              `rollout ${r.id} "${r.name}" created (${r.status}); start it with: firmledger rollout start ${r.id} --tenant ${o.tenant}`,
            rolloutResponse,
          ),
      ),
    'firmledger rollout create --tenant acme --name "1.1.0 to field test" --firmware 1 --group field-test --priority 1 --start "2026-01-01 00:00:00"',
  );
  for (const action of ['start', 'pause', 'resume', 'cancel'] as const) {
    example(
      rollout
        .command(`${action} <id>`)
        .description(ACTIONS[action])
        .addOption(tenantOption())
        .addOption(jsonOption())
        .action((id: string, o: { tenant: string; json?: boolean }) => {
          const rolloutId = positiveInt('rollout id')(id);
          return run(
            async (get) => naming(get(RolloutPlanService).apply(await tenantId(get, o.tenant), rolloutId, action), { Rollout: rolloutId }),
            !!o.json,
            (r) => `rollout ${r.id} is ${r.status}`,
            rolloutResponse,
          );
        }),
      `firmledger rollout ${action} 1 --tenant acme`,
    );
  }
  example(
    rollout
      .command('show <id>')
      .description('one rollout with its progress: targeted, updated, pending, last activity')
      .addOption(tenantOption())
      .addOption(jsonOption())
      .action((id: string, o: { tenant: string; json?: boolean }) => {
        const rolloutId = positiveInt('rollout id')(id);
        return run(
          async (get) => naming(get(RolloutPlanService).get(await tenantId(get, o.tenant), rolloutId), { Rollout: rolloutId }),
          !!o.json,
          (r) =>
            `rollout ${r.id} "${r.name}": ${r.status}, firmware ${r.firmwareId}, group ${r.groupId}, priority ${r.priority}, start ${r.startDate}\n` +
            `targeted ${r.targeted}, updated ${r.updated}, pending ${r.pending}, last activity ${r.lastActivity ?? 'none'}`,
          rolloutResponse,
        );
      }),
    'firmledger rollout show 1 --tenant acme',
  );
  example(
    rollout
      .command('list')
      .description('rollouts of a tenant by id, with their progress: targeted / updated / pending')
      .addOption(tenantOption())
      .addOption(jsonOption())
      .action((o: { tenant: string; json?: boolean }) =>
        run(
          async (get) => get(RolloutPlanService).list(await tenantId(get, o.tenant)),
          !!o.json,
          (rows) => table(rows.map(rolloutResponse), rolloutColumns),
          (rows) => rows.map(rolloutResponse),
        ),
      ),
    'firmledger rollout list --tenant acme',
  );
}
