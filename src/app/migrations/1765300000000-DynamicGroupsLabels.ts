import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Dynamic groups and device labels (docs/decisions.md §10.3): a group's `filter` (`NULL`: a static
 * group, members by identifier) and `device_label`, one row per device and label key (a plain-word
 * label has the value `''`), indexed by key and value for filters.
 */
export class DynamicGroupsLabels1765300000000 implements MigrationInterface {
  name = 'DynamicGroupsLabels1765300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE device_group ADD COLUMN filter varchar(1024)');
    await q.query(`CREATE TABLE device_label (
      device_id integer NOT NULL REFERENCES device (id) ON DELETE CASCADE,
      key varchar(64) NOT NULL,
      value varchar(64) NOT NULL,
      PRIMARY KEY (device_id, key))`);
    await q.query('CREATE INDEX device_label_key_value ON device_label (key, value)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE device_label');
    await q.query('ALTER TABLE device_group DROP COLUMN filter');
  }
}
