#!/usr/bin/env node
// `npm run lint` (last step): the layering of src/ and web/src checked by dependency-cruiser with the
// rules of .dependency-cruiser.cjs (docs/architecture.md). Run through its API rather than its CLI:
// `#src/*` resolves through tsconfig.json's paths (to the .ts sources), not through package.json's
// `imports` (which point at the compiled dist/ for Node). Exits 1 on any violation.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { cruise, format } from 'dependency-cruiser';
import ts from 'typescript';

const config = createRequire(import.meta.url)('../.dependency-cruiser.cjs');
/**
 * Cruises `paths` of the TypeScript project `tsconfig`, its `#…/*` aliases given as `alias` (prefix
 * → folder) the way its `paths` say; the summary, or exits 1 on a violation or an import it cannot resolve.
 */
async function check(paths, tsconfig, alias) {
  const tsConfig = ts.readConfigFile(tsconfig, (path) => readFileSync(path, 'utf8')).config;
  const { output } = await cruise(
    paths,
    { ...config.options, tsConfig: { fileName: tsconfig }, ruleSet: { forbidden: config.forbidden }, validate: true },
    { importsFields: [], alias, extensionAlias: { '.js': ['.ts', '.tsx', '.js'] } },
    { tsConfig },
  );
  if (output.summary.error > 0) {
    process.stdout.write((await format(output, { outputType: 'err' })).output);
    process.exit(1);
  }
  const unresolved = output.modules.flatMap((m) =>
    m.dependencies.filter((d) => d.couldNotResolve && d.module.startsWith('#')).map((d) => `${m.source}: ${d.module}`),
  );
  if (unresolved.length > 0) {
    console.error(`imports dependency-cruiser could not resolve, so could not check:\n  ${unresolved.join('\n  ')}`);
    process.exit(1);
  }
  return output.summary;
}

const server = await check(['src'], 'tsconfig.json', { '#src': resolve('src'), '#test': resolve('test') });
const console_ = await check(['web/src'], 'web/tsconfig.json', { '#src': resolve('src'), '#web': resolve('web/src') });
console.log(
  `architecture: ${server.totalCruised + console_.totalCruised} modules and ` +
    `${server.totalDependenciesCruised + console_.totalDependenciesCruised} imports follow .dependency-cruiser.cjs`,
);
