import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rollback policies (docs/decisions.md §10.4): a firmware may be marked as a rollback target
 * (`rollback_target`, false for every existing firmware: the anti-rollback rule keeps holding for
 * them); a rollout may carry a rollback policy (JSON text, `NULL`: none), and links to the rollback
 * rollout it started (`rollback_rollout_id`) or to the rollout it rolls back (`rollback_of`).
 */
export class RolloutRollback1765500000000 implements MigrationInterface {
  name = 'RolloutRollback1765500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE firmware ADD COLUMN rollback_target boolean NOT NULL DEFAULT false');
    await q.query('ALTER TABLE rollout ADD COLUMN rollback varchar(512)');
    await q.query('ALTER TABLE rollout ADD COLUMN rollback_rollout_id integer');
    await q.query('ALTER TABLE rollout ADD COLUMN rollback_of integer');
  }

  /** `ALTER TABLE … DROP COLUMN` on both engines (SQLite since 3.35), as in RolloutWindowsRamp1765100000000. */
  async down(q: QueryRunner): Promise<void> {
    for (const column of ['rollback_of', 'rollback_rollout_id', 'rollback']) await q.query(`ALTER TABLE rollout DROP COLUMN ${column}`);
    await q.query('ALTER TABLE firmware DROP COLUMN rollback_target');
  }
}
