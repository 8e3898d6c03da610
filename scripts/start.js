#!/usr/bin/env node
// `npm start`: builds only when there is no build or a source changed since the last one, then
// starts the server in this process. `npm run build` ends by touching dist/.build-stamp
// (scripts/build-stamp.js); a source newer than it (src/, web/, openapi/ (the console's API types are
// generated from openapi/operator.json), package.json, package-lock.json, tsconfig.json,
// ormconfig.ts) means the build is stale; files the build generates (`*.generated.ts`) are not
// sources. `npm test` and CI always build.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const STAMP = 'dist/.build-stamp';
const SOURCES = ['src', 'web', 'openapi', 'package.json', 'package-lock.json', 'tsconfig.json', 'ormconfig.ts'];

/** The newest modification time (ms) of a file, or of any file under a directory. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry.endsWith('.generated.ts')) continue;
    latest = Math.max(latest, newest(join(path, entry)));
  }
  return latest;
}

const built = existsSync(STAMP) ? statSync(STAMP).mtimeMs : 0;
const changed = Math.max(...SOURCES.map(newest));
if (changed > built) {
  console.error(built === 0 ? 'npm start: no build yet: building' : 'npm start: sources changed since the last build: building');
  const build = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
await import('../dist/src/main.js');
