import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which targets a rollout offers its firmware to (docs/decisions.md §10.5): `offer_when` is
 * `newer` (only devices whose version orders before the firmware's: anti-rollback, what every
 * existing rollout did) or `different` (every device not already running the firmware's version).
 * The new device state `skipped` needs no schema change: states are text, counted per state by the
 * triggers of RolloutWaveCounts1765000000000.
 */
export class RolloutOfferWhen1766020000000 implements MigrationInterface {
  name = 'RolloutOfferWhen1766020000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE rollout ADD COLUMN offer_when varchar(16) NOT NULL DEFAULT 'newer'`);
  }

  /** `ALTER TABLE … DROP COLUMN` on both engines (SQLite since 3.35), as in RolloutAbortTimeouts1765200000000. */
  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE rollout DROP COLUMN offer_when');
  }
}
