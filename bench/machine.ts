import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { dirname, join } from 'node:path';

/** The machine a run happened on. */
export interface Machine {
  cpu: string;
  cores: number;
  /** Bytes. */
  memory: number;
  os: string;
  /** 1, 5 and 15 minute load averages at the start of the run. */
  loadBefore: string;
}

/** CPU model, cores, RAM, OS and the current load. */
export function machineInfo(): Machine {
  let os = `Linux ${release()}`;
  try {
    const pretty = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1];
    if (pretty) os = `${pretty}, kernel ${release()}`;
  } catch {
    // not every system has /etc/os-release
  }
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores: cpus().length,
    memory: totalmem(),
    os,
    loadBefore: loadavg()
      .map((n) => n.toFixed(2))
      .join(' / '),
  };
}

/** Version of package `name` as node resolves it from `dir` (the nearest `node_modules/<name>` upwards). */
function installedVersion(name: string, dir: string): string {
  for (let at = dir; ; at = dirname(at)) {
    const file = join(at, 'node_modules', name, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
    if (dirname(at) === at) return 'not installed';
  }
}

/**
 * Versions of what is measured, as installed: fastify as @nestjs/platform-fastify resolves it
 * (the app's) and as the bench resolves it (the ceiling's); they must be the same.
 */
export function versions(root: string): Record<string, string> {
  const platform = join(root, 'node_modules', '@nestjs', 'platform-fastify');
  const list: Record<string, string> = { node: process.versions.node };
  list['fastify'] = installedVersion('fastify', platform);
  const ceiling = installedVersion('fastify', join(root, 'bench'));
  if (ceiling !== list['fastify']) list['fastify (ceiling)'] = ceiling;
  for (const name of ['@nestjs/core', '@nestjs/platform-fastify', 'typeorm', 'sqlite3', 'better-sqlite3', 'autocannon']) {
    list[name] = installedVersion(name, root);
  }
  return list;
}
