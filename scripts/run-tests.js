#!/usr/bin/env node
// Runs every compiled spec (unit specs beside the code, e2e specs under test/) with node's test
// runner. Node 20 has no glob for --test, so the files are listed here.
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
const filter = process.argv.slice(2);
const chosen = filter.length ? specs.filter((s) => filter.some((f) => s.includes(f))) : specs;
if (chosen.length === 0) {
  console.error('no spec files found');
  process.exit(1);
}
const { status } = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...chosen.sort()], { stdio: 'inherit' });
process.exit(status ?? 1);
