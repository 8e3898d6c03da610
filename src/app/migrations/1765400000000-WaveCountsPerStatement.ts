import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * PostgreSQL keeps `rollout_wave_count` (docs/decisions.md §10) with statement-level triggers over
 * the statement's transition tables instead of a row-level one: a statement that inserts, changes
 * or deletes many states (starting a rollout of a million devices, a retry) adds its counts once per
 * (rollout, wave, state), where the row trigger updated the same count row once per device and, in
 * one transaction, left PostgreSQL a chain of row versions to walk on every update (minutes for a
 * few hundred thousand devices). SQLite updates a row in place and keeps its row triggers.
 */
export class WaveCountsPerStatement1765400000000 implements MigrationInterface {
  name = 'WaveCountsPerStatement1765400000000';

  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'postgres') return;
    await q.query('DROP TRIGGER rollout_device_state_counted ON rollout_device_state');
    await q.query('DROP FUNCTION rollout_wave_count_track()');
    const add = (rows: string) => `INSERT INTO rollout_wave_count (rollout_id, wave, state, devices)
        SELECT rollout_id, wave, state, COUNT(*) FROM ${rows} GROUP BY rollout_id, wave, state
        ON CONFLICT (rollout_id, wave, state) DO UPDATE SET devices = rollout_wave_count.devices + EXCLUDED.devices`;
    const subtract = (rows: string) => `UPDATE rollout_wave_count c SET devices = c.devices - o.devices
        FROM (SELECT rollout_id, wave, state, COUNT(*) AS devices FROM ${rows} GROUP BY rollout_id, wave, state) o
        WHERE c.rollout_id = o.rollout_id AND c.wave = o.wave AND c.state = o.state`;
    // Rows of an UPDATE whose state or wave changed, before and after.
    const movedOld = `(SELECT o.* FROM old_rows o JOIN new_rows n ON n.rollout_id = o.rollout_id AND n.device_id = o.device_id
        WHERE o.state <> n.state OR o.wave <> n.wave) moved_old`;
    const movedNew = `(SELECT n.* FROM new_rows n JOIN old_rows o ON o.rollout_id = n.rollout_id AND o.device_id = n.device_id
        WHERE o.state <> n.state OR o.wave <> n.wave) moved_new`;
    await q.query(`CREATE FUNCTION rollout_wave_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${add('new_rows')}; RETURN NULL; END $$`);
    await q.query(`CREATE FUNCTION rollout_wave_count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${subtract('old_rows')}; RETURN NULL; END $$`);
    await q.query(`CREATE FUNCTION rollout_wave_count_updated() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${subtract(movedOld)}; ${add(movedNew)}; RETURN NULL; END $$`);
    await q.query(`CREATE TRIGGER rollout_device_state_counted_insert AFTER INSERT ON rollout_device_state
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rollout_wave_count_inserted()`);
    await q.query(`CREATE TRIGGER rollout_device_state_counted_delete AFTER DELETE ON rollout_device_state
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION rollout_wave_count_deleted()`);
    // Transition tables take no column list: every UPDATE statement runs it, and only moved rows count.
    await q.query(`CREATE TRIGGER rollout_device_state_counted_update AFTER UPDATE ON rollout_device_state
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rollout_wave_count_updated()`);
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'postgres') return;
    for (const kind of ['insert', 'delete', 'update'])
      await q.query(`DROP TRIGGER rollout_device_state_counted_${kind} ON rollout_device_state`);
    for (const kind of ['inserted', 'deleted', 'updated']) await q.query(`DROP FUNCTION rollout_wave_count_${kind}()`);
    await q.query(`CREATE FUNCTION rollout_wave_count_track() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND OLD.state = NEW.state AND OLD.wave = NEW.wave THEN RETURN NULL; END IF;
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          UPDATE rollout_wave_count SET devices = devices - 1 WHERE rollout_id = OLD.rollout_id AND wave = OLD.wave AND state = OLD.state;
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
          INSERT INTO rollout_wave_count (rollout_id, wave, state, devices) VALUES (NEW.rollout_id, NEW.wave, NEW.state, 1)
            ON CONFLICT (rollout_id, wave, state) DO UPDATE SET devices = rollout_wave_count.devices + 1;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER rollout_device_state_counted AFTER INSERT OR DELETE OR UPDATE OF state, wave
      ON rollout_device_state FOR EACH ROW EXECUTE FUNCTION rollout_wave_count_track()`);
  }
}
