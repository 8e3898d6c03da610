import { InvalidArgumentError, Option } from 'commander';
import { TenantService } from '#src/tenant/tenant.service.js';
import { withServices } from './cli-context.js';
import { print } from './output.js';

/** Looks up a service of the CLI's application context by its class. */
export type ServiceGetter = <S>(type: new (...args: never[]) => S) => S;

/** `--json`: print the command's result as JSON. */
export function jsonOption(): Option {
  return new Option('--json', 'print the result as JSON');
}

/** `--tenant <tenant>` (mandatory): the tenant a command acts for, by id or name. */
export function tenantOption(): Option {
  return new Option('--tenant <tenant>', 'tenant id or name').makeOptionMandatory();
}

/** An argument parser for whole numbers ≥ 1; `name` appears in the error. */
export const positiveInt = (name: string) => (text: string) => {
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new InvalidArgumentError(`${name} must be a whole number ≥ 1`);
  return Number(text);
};

/** Runs a command body with the services, printing its result; expected errors exit 1 with one line. */
export async function run<T>(work: (get: ServiceGetter) => Promise<T>, asJson: boolean, human: (value: T) => string): Promise<void> {
  const result = await withServices((app) => work((type) => app.get(type)));
  print(result, asJson, human);
}

/** The id of a tenant given by id or name. @throws when there is no such tenant. */
export async function tenantId(get: ServiceGetter, ref: string): Promise<number> {
  return (await get(TenantService).resolveTenant(ref)).id;
}
