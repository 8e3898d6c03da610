#!/usr/bin/env node
// Runs every compiled spec with node's test runner, in three passes:
//   1. sqlite     unit specs (beside the code) and the e2e specs (test/e2e) on SQLite
//   2. postgres   the e2e specs again on PostgreSQL (FIRMLEDGER_TEST_DB=postgres: each app on
//                 a fresh database created from TEST_DATABASE_URL, default
//                 postgres://postgres@127.0.0.1:5432/test)
//   3. instances  several server processes on one PostgreSQL database, with Redis, behind nginx
// Arguments filter spec files by substring (`node scripts/run-tests.js auth`); `--pass=postgres`
// (repeatable) runs only the named passes; `--unit` only the unit specs (beside the code, in the
// sqlite pass: `npm run test:unit`), `--e2e` only the e2e specs (test/e2e, every pass:
// `npm run test:e2e`). Node 20 has no glob for --test, so files are listed here.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const specs = [];
const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path);
    else if (entry.name.endsWith('.spec.js')) specs.push(path);
  }
};
walk('dist/src');
walk('dist/test');
specs.sort();

const isE2e = (spec) => spec.startsWith(join('dist', 'test', 'e2e'));

const args = process.argv.slice(2);
const onlyPasses = args.filter((a) => a.startsWith('--pass=')).map((a) => a.slice('--pass='.length));
const unitOnly = args.includes('--unit');
const e2eOnly = args.includes('--e2e');
if (unitOnly && e2eOnly) {
  console.error('--unit and --e2e exclude each other: give neither to run both');
  process.exit(1);
}
const filter = args.filter((a) => !a.startsWith('--pass=') && a !== '--unit' && a !== '--e2e');
const tier = specs.filter((s) => (unitOnly ? !isE2e(s) : e2eOnly ? isE2e(s) : true));
const chosen = filter.length ? tier.filter((s) => filter.some((f) => s.includes(f))) : tier;
if (chosen.length === 0) {
  console.error('no spec files found');
  process.exit(1);
}

const isInstances = (spec) => spec.includes('multi-instance');
const passes = [
  {
    name: 'sqlite',
    title: 'unit specs, and e2e specs on SQLite',
    env: { FIRMLEDGER_TEST_DB: 'sqlite' },
    files: chosen.filter((s) => !isInstances(s)),
  },
  {
    name: 'postgres',
    title: 'e2e specs on PostgreSQL (a fresh database per app)',
    env: { FIRMLEDGER_TEST_DB: 'postgres' },
    files: chosen.filter((s) => isE2e(s) && !isInstances(s)),
  },
  {
    name: 'instances',
    title: 'several instances: server processes on one PostgreSQL database, Redis, nginx',
    env: { FIRMLEDGER_TEST_DB: 'postgres' },
    files: chosen.filter(isInstances),
  },
].filter((pass) => pass.files.length > 0 && (onlyPasses.length === 0 || onlyPasses.includes(pass.name)));

const results = [];
for (const pass of passes) {
  console.log(`\n=== test pass "${pass.name}": ${pass.title} (${pass.files.length} spec files) ===\n`);
  const started = Date.now();
  const { status } = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...pass.files], {
    stdio: 'inherit',
    env: { ...process.env, ...pass.env },
  });
  results.push({ pass, status: status ?? 1, seconds: (Date.now() - started) / 1000 });
}

console.log('\n=== test passes ===');
for (const { pass, status, seconds } of results) {
  console.log(`${status === 0 ? 'ok  ' : 'FAIL'} ${pass.name.padEnd(9)} ${seconds.toFixed(1).padStart(6)} s  ${pass.title}`);
}
process.exit(results.every((r) => r.status === 0) ? 0 : 1);
