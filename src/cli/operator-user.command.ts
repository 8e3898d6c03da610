import { Option, type Command } from 'commander';
import { OPERATOR_ROLES } from '#src/domain/access/operator-role.js';
import { OperatorUserService, type OperatorUserView } from '#src/domain/access/operator-user.service.js';
import { CliError, withServices } from './cli-context.js';
import { example, jsonOption } from './command-kit.js';
import { print, snakeCaseKeys, table } from './output.js';

/**
 * `firmledger operator-user create|list|disable|passwd`: operator accounts of the web console
 * (`{operator_url}/`). Passwords are read from the terminal without echo, or as the first line of
 * standard input when it is not a terminal (`printf '%s\n' "$PW" | firmledger operator-user …`);
 * never from the command line, where other users of the machine could read them.
 */
export function registerOperatorUserCommands(program: Command): void {
  const users = example(
    program.command('operator-user').description('operator accounts of the web console ({operator_url}/): role admin or viewer'),
    'firmledger operator-user create alice --role admin',
    'firmledger operator-user list',
  );
  example(
    users
      .command('create <username>')
      .description('create an account; asks for its password (12 to 256 characters; from standard input when it is not a terminal)')
      .addOption(new Option('--role <role>', 'admin (everything) or viewer (reads only)').choices(OPERATOR_ROLES).makeOptionMandatory())
      .addOption(jsonOption())
      .action(async (username: string, o: { role: string; json?: boolean }) => {
        const user = await withServices(async (app) =>
          app.get(OperatorUserService).create(username, await readPassword(`password for ${username}: `, true), o.role),
        );
        print(user, !!o.json, (u) => `operator user ${u.id} "${u.username}" created with role ${u.role}`, userJson);
      }),
    'firmledger operator-user create alice --role admin',
    `printf '%s\\n' "$PASSWORD" | firmledger operator-user create ci-viewer --role viewer`,
  );
  example(
    users
      .command('list')
      .description('accounts, with their roles and whether they are disabled (never their passwords)')
      .addOption(jsonOption())
      .action(async (o: { json?: boolean }) => {
        const rows = (await withServices((app) => app.get(OperatorUserService).list())).map(userJson);
        print(rows, !!o.json, (r) => table(r, ['id', 'username', 'role', 'disabled', 'created_at']));
      }),
    'firmledger operator-user list',
  );
  example(
    users
      .command('disable <username>')
      .description('disable an account: it cannot sign in, and its sessions end at once')
      .addOption(jsonOption())
      .action(async (username: string, o: { json?: boolean }) => {
        const user = await withServices((app) => app.get(OperatorUserService).disable(username));
        print(user, !!o.json, (u) => `operator user "${u.username}" disabled; its sessions have ended`, userJson);
      }),
    'firmledger operator-user disable mallory',
  );
  example(
    users
      .command('passwd <username>')
      .description('set a new password; the account’s sessions end (sign in again)')
      .addOption(jsonOption())
      .action(async (username: string, o: { json?: boolean }) => {
        const user = await withServices(async (app) =>
          app.get(OperatorUserService).setPassword(username, await readPassword(`new password for ${username}: `, true)),
        );
        print(user, !!o.json, (u) => `operator user "${u.username}" has a new password; its sessions have ended`, userJson);
      }),
    'firmledger operator-user passwd alice',
  );
}

/** An account as the CLI prints it: snake_case, as the REST API names fields. */
function userJson(user: OperatorUserView): Record<string, unknown> {
  return snakeCaseKeys(user);
}

/**
 * A password from the terminal, typed twice without echo when `confirm`, or the first line of
 * standard input when it is not a terminal.
 * @throws CliError when the two typings differ or nothing was given.
 */
async function readPassword(prompt: string, confirm: boolean): Promise<string> {
  if (!process.stdin.isTTY) {
    let text = '';
    for await (const chunk of process.stdin) text += String(chunk);
    const line = text.split(/\r?\n/)[0] ?? '';
    if (line === '') throw new CliError('no password on standard input (give it as the first line)');
    return line;
  }
  const first = await typeHidden(prompt);
  if (confirm && (await typeHidden('again: ')) !== first) throw new CliError('the two passwords differ');
  return first;
}

/** Reads one line from the terminal in raw mode, echoing nothing. */
function typeHidden(prompt: string): Promise<string> {
  process.stderr.write(prompt);
  const input = process.stdin;
  input.setRawMode(true);
  input.resume();
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (error?: Error) => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') return done();
        if (char === '\u0003') return done(new CliError('cancelled'));
        if (char === '\u007f' || char === '\b') typed = [...typed].slice(0, -1).join('');
        else if (char >= ' ') typed += char;
      }
    };
    input.on('data', onData);
  });
}
