import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Maintenance windows and a ramp for rollouts (docs/decisions.md §10.1): per rollout its windows
 * (JSON text, `[]` for every existing rollout: always open) and its ramp (JSON text, `NULL`: no
 * limit), and `rollout_ramp_minute`, one row per rollout and minute counting the new offers made
 * in that minute, so every instance takes from the same allowance (an atomic conditional upsert).
 */
export class RolloutWindowsRamp1765100000000 implements MigrationInterface {
  name = 'RolloutWindowsRamp1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE rollout ADD COLUMN windows varchar(2048) NOT NULL DEFAULT '[]'`);
    await q.query('ALTER TABLE rollout ADD COLUMN ramp varchar(256)');
    await q.query(`CREATE TABLE rollout_ramp_minute (
      rollout_id integer NOT NULL REFERENCES rollout (id) ON DELETE CASCADE,
      minute bigint NOT NULL,
      used integer NOT NULL,
      PRIMARY KEY (rollout_id, minute))`);
  }

  /** `ALTER TABLE … DROP COLUMN` on both engines (SQLite since 3.35), as in DdiProtocol1764810000000. */
  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE rollout_ramp_minute');
    await q.query('ALTER TABLE rollout DROP COLUMN ramp');
    await q.query('ALTER TABLE rollout DROP COLUMN windows');
  }
}
