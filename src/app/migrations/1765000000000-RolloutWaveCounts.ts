import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How many devices of each rollout are in each wave and state, kept by the database itself
 * (docs/decisions.md §10): `rollout_wave_count` holds one row per (rollout, wave, state) with its
 * number of devices, and triggers on `rollout_device_state` keep it in step in the same transaction
 * as every insert, state or wave change and delete of a device's state (also the deletes a cascade
 * makes). A report then settles its rollout by reading a few rows instead of counting every state of
 * the rollout (bench/RESULTS.md: the cost no longer grows with the rollout). Filled from the states
 * there are.
 */
export class RolloutWaveCounts1765000000000 implements MigrationInterface {
  name = 'RolloutWaveCounts1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE rollout_wave_count (
      rollout_id integer NOT NULL REFERENCES rollout (id) ON DELETE CASCADE,
      wave integer NOT NULL,
      state varchar(16) NOT NULL,
      devices integer NOT NULL,
      PRIMARY KEY (rollout_id, wave, state))`);
    await q.query(`INSERT INTO rollout_wave_count (rollout_id, wave, state, devices)
      SELECT rollout_id, wave, state, COUNT(*) FROM rollout_device_state GROUP BY rollout_id, wave, state`);
    const counted = `INSERT INTO rollout_wave_count (rollout_id, wave, state, devices) VALUES (NEW.rollout_id, NEW.wave, NEW.state, 1)
      ON CONFLICT (rollout_id, wave, state) DO UPDATE SET devices = rollout_wave_count.devices + 1`;
    const uncounted = `UPDATE rollout_wave_count SET devices = devices - 1
      WHERE rollout_id = OLD.rollout_id AND wave = OLD.wave AND state = OLD.state`;
    if (q.connection.options.type === 'postgres') {
      await q.query(`CREATE FUNCTION rollout_wave_count_track() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP = 'UPDATE' AND OLD.state = NEW.state AND OLD.wave = NEW.wave THEN RETURN NULL; END IF;
          IF TG_OP IN ('UPDATE', 'DELETE') THEN ${uncounted}; END IF;
          IF TG_OP IN ('INSERT', 'UPDATE') THEN ${counted}; END IF;
          RETURN NULL;
        END $$`);
      await q.query(`CREATE TRIGGER rollout_device_state_counted AFTER INSERT OR DELETE OR UPDATE OF state, wave
        ON rollout_device_state FOR EACH ROW EXECUTE FUNCTION rollout_wave_count_track()`);
      return;
    }
    await q.query(`CREATE TRIGGER rollout_device_state_counted_insert AFTER INSERT ON rollout_device_state
      BEGIN ${counted}; END`);
    await q.query(`CREATE TRIGGER rollout_device_state_counted_update AFTER UPDATE OF state, wave ON rollout_device_state
      WHEN OLD.state <> NEW.state OR OLD.wave <> NEW.wave
      BEGIN ${uncounted}; ${counted}; END`);
    await q.query(`CREATE TRIGGER rollout_device_state_counted_delete AFTER DELETE ON rollout_device_state
      BEGIN ${uncounted}; END`);
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'postgres') {
      await q.query('DROP TRIGGER rollout_device_state_counted ON rollout_device_state');
      await q.query('DROP FUNCTION rollout_wave_count_track()');
    } else {
      for (const kind of ['insert', 'update', 'delete']) await q.query(`DROP TRIGGER rollout_device_state_counted_${kind}`);
    }
    await q.query('DROP TABLE rollout_wave_count');
  }
}
