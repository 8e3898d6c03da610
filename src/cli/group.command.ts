import type { Command } from 'commander';
import { groupResponse } from '#src/operator/operator-responses.js';
import { GroupService } from '#src/domain/group/group.service.js';
import { example, jsonOption, run, tenantId, tenantOption } from './command-kit.js';
import { table } from './output.js';

/** `firmledger group create|filter|add|remove|list`: device groups that rollouts target. */
export function registerGroupCommands(program: Command): void {
  const group = example(
    program.command('group').description('device groups that rollouts target'),
    'firmledger group create field-test --tenant acme',
    'firmledger group add field-test AC:67:B2:01:02:03 --tenant acme',
  );
  example(
    group
      .command('create <name>')
      .description(
        'create an empty device group (add devices with "group add"), or with --filter a dynamic group: ' +
          'its members are the devices that match the filter, now and later (docs/decisions.md §10.3)',
      )
      .addOption(tenantOption())
      .option('--filter <query>', "a dynamic group's filter, e.g. 'device_type = ESP32 and attribute.hw_rev = 3 and not label.site = lab'")
      .addOption(jsonOption())
      .action((name: string, o: { tenant: string; filter?: string; json?: boolean }) =>
        run(
          async (get) => get(GroupService).create(await tenantId(get, o.tenant), name, [], undefined, o.filter),
          !!o.json,
          (g) => (g.filter === null ? `group ${g.id} "${g.name}"` : `dynamic group ${g.id} "${g.name}": ${g.members} members match`),
          groupResponse,
        ),
      ),
    'firmledger group create field-test --tenant acme',
    "firmledger group create esp32-rev3 --filter 'device_type = ESP32 and attribute.hw_rev = 3' --tenant acme",
  );
  example(
    group
      .command('filter <group> <query>')
      .description("set a dynamic group's filter; its members are recomputed")
      .addOption(tenantOption())
      .addOption(jsonOption())
      .action((ref: string, query: string, o: { tenant: string; json?: boolean }) =>
        run(
          async (get) => get(GroupService).setFilter(await tenantId(get, o.tenant), ref, query),
          !!o.json,
          (g) => `dynamic group ${g.id} "${g.name}": ${g.members} members match`,
          groupResponse,
        ),
      ),
    "firmledger group filter esp32-rev3 'device_type = ESP32 and label.site = field' --tenant acme",
  );
  example(
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
          groupResponse,
        ),
      ),
    'firmledger group add field-test AC:67:B2:01:02:03 ac-67-b2-01-02-04 --tenant acme',
  );
  example(
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
          groupResponse,
        ),
      ),
    'firmledger group remove field-test AC:67:B2:01:02:03 --tenant acme',
  );
  example(
    group
      .command('list')
      .description('groups of a tenant with their member counts')
      .addOption(tenantOption())
      .addOption(jsonOption())
      .action((o: { tenant: string; json?: boolean }) =>
        run(
          async (get) => get(GroupService).list(await tenantId(get, o.tenant)),
          !!o.json,
          (rows) => table(rows.map(groupResponse), ['id', 'name', 'members', 'filter']),
          (rows) => rows.map(groupResponse),
        ),
      ),
    'firmledger group list --tenant acme',
  );
}
