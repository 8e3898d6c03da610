import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Abort criteria and timeouts for rollouts (docs/decisions.md §10.2): per rollout its criteria
 * (JSON text, `[]` for every existing rollout: none) and a timeout in seconds for each of the states
 * `offered`, `downloading` and `installed` (`NULL`: none; for `installed` the server's confirmation
 * window then applies, as before). The new device state `timed_out` needs no schema change:
 * states are text, and the triggers of RolloutWaveCounts1765000000000 count any state per
 * (rollout, wave, state) row.
 */
export class RolloutAbortTimeouts1765200000000 implements MigrationInterface {
  name = 'RolloutAbortTimeouts1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE rollout ADD COLUMN abort_criteria varchar(1024) NOT NULL DEFAULT '[]'`);
    for (const state of ['offered', 'downloading', 'installed']) await q.query(`ALTER TABLE rollout ADD COLUMN timeout_${state} integer`);
  }

  /** `ALTER TABLE … DROP COLUMN` on both engines (SQLite since 3.35), as in RolloutWindowsRamp1765100000000. */
  async down(q: QueryRunner): Promise<void> {
    for (const state of ['installed', 'downloading', 'offered']) await q.query(`ALTER TABLE rollout DROP COLUMN timeout_${state}`);
    await q.query('ALTER TABLE rollout DROP COLUMN abort_criteria');
  }
}
