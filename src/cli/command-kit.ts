import { NotFoundException } from '@nestjs/common';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { TenantService } from '#src/domain/tenant/tenant.service.js';
import { CliError, withServices } from './cli-context.js';
import { print } from './output.js';

/** Looks up a service of the CLI's application context by its class. */
export type ServiceGetter = <S>(type: new (...args: never[]) => S) => S;

/** `--json`: print the command's result as JSON (see `output.ts`). */
export function jsonOption(): Option {
  return new Option('--json', 'print the result as JSON, with the REST API’s field names; errors as {"message": ...} on stderr');
}

/** `--tenant <tenant>` (mandatory): the tenant a command acts for, by id or name. */
export function tenantOption(): Option {
  return new Option('--tenant <tenant>', 'tenant id or name').makeOptionMandatory();
}

/**
 * Adds example command lines to a command's help (`--help` prints them last), one or more,
 * each written without the `$ ` prompt.
 */
export function example<C extends Command>(command: C, ...lines: string[]): C {
  const title = lines.length > 1 ? 'Examples' : 'Example';
  return command.addHelpText('after', `\n${title}:\n${lines.map((line) => `  $ ${line}`).join('\n')}`);
}

/** An argument parser for whole numbers ≥ 1, at most 15 digits (exact as a JavaScript number); `name` appears in the error. */
export const positiveInt = (name: string) => (text: string) => {
  if (!/^\d{1,15}$/.test(text) || Number(text) < 1) throw new InvalidArgumentError(`${name} must be a whole number ≥ 1`);
  return Number(text);
};

/**
 * Runs a command body with the services and prints its result (see {@link print}: `toJson` gives
 * the REST API's shape of it); expected errors exit 1 with one line.
 */
export async function run<T>(
  work: (get: ServiceGetter) => Promise<T>,
  asJson: boolean,
  human: (value: T) => string,
  toJson?: (value: T) => unknown,
): Promise<void> {
  const result = await withServices((app) => work((type) => app.get(type)));
  print(result, asJson, human, toJson);
}

/** The id of a tenant given by id or name. @throws when there is no such tenant. */
export async function tenantId(get: ServiceGetter, ref: string): Promise<number> {
  return (await get(TenantService).resolveTenant(ref)).id;
}

/**
 * Names what was not found: the services answer some 404s without the id the user gave
 * (`Firmware not found`, as the device interface words it); the CLI knows it and says
 * `Firmware 99 not found`. `refs` maps the noun of such a message to the reference given.
 * @throws CliError naming the reference, or the original error when it is not one of these.
 */
export async function naming<T>(work: Promise<T>, refs: Record<string, string | number>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof NotFoundException) {
      const noun = /^(.+) not found$/.exec(error.message)?.[1];
      if (noun !== undefined && refs[noun] !== undefined) throw new CliError(`${noun} ${refs[noun]} not found`);
    }
    throw error;
  }
}
