import { defineWriteJob } from '#src/platform/database/write-job.js';

/**
 * Write jobs of the write-behind spec (src/platform/database/write-behind.spec.ts). In a module of
 * their own, without node:test, because the background writer's thread imports the module that
 * defines a job.
 */

/** A row of the spec's table `probe (k TEXT PRIMARY KEY, v INTEGER)`. */
export interface Probe {
  k: string;
  v: number;
}

/**
 * Upserts probes one statement each; while the table `gate` holds a row, a probe whose key starts
 * with `poison` fails its whole slice.
 */
export const writeProbes = defineWriteJob<Probe>(import.meta.url, 'writeProbes', async (sql, probes) => {
  const closed = (await sql('SELECT COUNT(*) AS n FROM gate', []))[0]['n'] !== 0;
  for (const { k, v } of probes) {
    if (closed && k.startsWith('poison')) throw new Error(`refused ${k}`);
    await sql('INSERT INTO probe (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = excluded.v', [k, v]);
  }
});

/** Inserts `v` rows for each probe, so a slice takes long enough to see the event loop meanwhile. */
export const writeManyRows = defineWriteJob<Probe>(import.meta.url, 'writeManyRows', async (sql, probes) => {
  for (const { k, v } of probes) {
    for (let i = 0; i < v; i++) await sql('INSERT INTO bulk (k, i) VALUES ($1, $2)', [k, i]);
  }
});
