import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the hawkBit DDI component needs (docs/decisions.md §12): per rollout the DDI action type
 * (`forced` for every existing rollout), per firmware the file name it was published from and its
 * SHA-1 (DDI clients check the artifact against it; filled in for older firmware from the stored
 * bytes the first time a DDI device needs it), per tenant the polling interval its DDI devices are
 * told (`config.polling.sleep`, 300 seconds). Plain `ALTER TABLE … ADD COLUMN`, the same on SQLite
 * and PostgreSQL.
 */
export class DdiProtocol1764810000000 implements MigrationInterface {
  name = 'DdiProtocol1764810000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE rollout ADD COLUMN ddi_action_type varchar(16) NOT NULL DEFAULT 'forced'`);
    await q.query('ALTER TABLE firmware ADD COLUMN filename varchar(255)');
    await q.query('ALTER TABLE firmware ADD COLUMN sha1 varchar(40)');
    await q.query('ALTER TABLE tenant ADD COLUMN ddi_polling_seconds integer NOT NULL DEFAULT 300');
  }

  /**
   * `ALTER TABLE … DROP COLUMN` on both engines (SQLite since 3.35): TypeORM's `dropColumn` rebuilds
   * a table on SQLite, and a revert runs with foreign keys on, so rebuilding `tenant` would delete
   * every row that references it.
   */
  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE tenant DROP COLUMN ddi_polling_seconds');
    await q.query('ALTER TABLE firmware DROP COLUMN sha1');
    await q.query('ALTER TABLE firmware DROP COLUMN filename');
    await q.query('ALTER TABLE rollout DROP COLUMN ddi_action_type');
  }
}
