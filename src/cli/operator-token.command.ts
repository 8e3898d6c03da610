import { Option, type Command } from 'commander';
import { OperatorTokenService, type OperatorTokenView } from '#src/domain/access/operator-token.service.js';
import { OPERATOR_ROLES, type OperatorRole } from '#src/domain/access/operator-role.js';
import { example, jsonOption, positiveInt, run } from './command-kit.js';
import { snakeCaseKeys, table } from './output.js';

/** An operator token as the CLI prints it: snake_case, as the REST API names fields. */
const tokenJson = (token: OperatorTokenView) => snakeCaseKeys(token);

/** `firmledger operator-token create|revoke|list`: bearer tokens of the operator REST API. */
export function registerOperatorTokenCommands(program: Command): void {
  const operatorToken = example(
    program.command('operator-token').description('bearer tokens of the operator REST API (OPERATOR_URL)'),
    'firmledger operator-token create --name ci-pipeline',
    'firmledger operator-token list',
  );
  example(
    operatorToken
      .command('create')
      .description('create an operator token; it is shown once and stored only as a hash')
      .requiredOption('--name <name>', 'who holds it, e.g. ci-pipeline')
      .addOption(new Option('--role <role>', 'admin (everything) or viewer (reads only)').choices(OPERATOR_ROLES).default('admin'))
      .addOption(jsonOption())
      .action((o: { name: string; role: OperatorRole; json?: boolean }) =>
        run(
          (get) => get(OperatorTokenService).create(o.name, o.role),
          !!o.json,
          (t) =>
            `operator token ${t.id} "${t.name}" (${t.role}): ${t.token}\n(shown once: keep it; send it as "Authorization: Bearer <token>")`,
          tokenJson,
        ),
      ),
    'firmledger operator-token create --name dashboards --role viewer',
  );
  example(
    operatorToken
      .command('revoke <id>')
      .description('revoke an operator token: requests bearing it are refused at once')
      .addOption(jsonOption())
      .action((id: string, o: { json?: boolean }) =>
        run(
          (get) => get(OperatorTokenService).revoke(positiveInt('operator token id')(id)),
          !!o.json,
          (t) => `operator token ${t.id} "${t.name}" revoked`,
          tokenJson,
        ),
      ),
    'firmledger operator-token revoke 2',
  );
  example(
    operatorToken
      .command('list')
      .description('operator tokens by id: name, first characters, role, revoked (never the tokens)')
      .addOption(jsonOption())
      .action((o: { json?: boolean }) =>
        run(
          (get) => get(OperatorTokenService).list(),
          !!o.json,
          (rows) => table(rows.map(tokenJson), ['id', 'name', 'hint', 'role', 'revoked', 'created_at']),
          (rows) => rows.map(tokenJson),
        ),
      ),
    'firmledger operator-token list',
  );
}
