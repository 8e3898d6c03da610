import type { Command } from 'commander';
import { GroupService } from '#src/group/group.service.js';
import { jsonOption, run, tenantId, tenantOption } from './command-kit.js';
import { table } from './output.js';

/** `firmledger group create|add|remove|list`: device groups that rollouts target. */
export function registerGroupCommands(program: Command): void {
  const group = program.command('group').description('device groups that rollouts target');
  group
    .command('create <name>')
    .addOption(tenantOption())
    .addOption(jsonOption())
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
    .addOption(tenantOption())
    .addOption(jsonOption())
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
    .addOption(tenantOption())
    .addOption(jsonOption())
    .action((ref: string, macs: string[], o: { tenant: string; json?: boolean }) =>
      run(
        async (get) => get(GroupService).removeMembers(await tenantId(get, o.tenant), ref, macs),
        !!o.json,
        (g) => `group ${g.id} "${g.name}": ${g.members} members`,
      ),
    );
  group
    .command('list')
    .addOption(tenantOption())
    .addOption(jsonOption())
    .action((o: { tenant: string; json?: boolean }) =>
      run(
        async (get) => get(GroupService).list(await tenantId(get, o.tenant)),
        !!o.json,
        (rows) => table(rows, ['id', 'name', 'members']),
      ),
    );
}
