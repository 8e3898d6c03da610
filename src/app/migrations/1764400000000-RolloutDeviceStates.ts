import { MigrationInterface, QueryRunner, Table } from 'typeorm';

const references = (table: string, column: string) => ({
  columnNames: [column],
  referencedTableName: table,
  referencedColumnNames: ['id'],
  onDelete: 'CASCADE' as const,
});

/**
 * Rollouts that know each targeted device's state (docs/decisions.md §10): one row per (rollout, device) with its state, wave, the time of each state and
 * the failure message; one row per transition (the device's history); and on the rollout its
 * waves, thresholds, approval mode, the wave under way and the reason of an automatic pause.
 *
 * Success reports recorded before this migration become `confirmed` when the device runs the
 * rollout's version now, else `installed` (the confirmation window then decides), so a device
 * that reported success is not offered the rollout again.
 */
export class RolloutDeviceStates1764400000000 implements MigrationInterface {
  name = 'RolloutDeviceStates1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE rollout ADD COLUMN waves varchar(512) NOT NULL DEFAULT '["100%"]'`);
    await q.query('ALTER TABLE rollout ADD COLUMN success_threshold float NOT NULL DEFAULT 0.9');
    await q.query('ALTER TABLE rollout ADD COLUMN error_threshold float');
    await q.query(`ALTER TABLE rollout ADD COLUMN approval varchar(8) NOT NULL DEFAULT 'auto'`);
    await q.query('ALTER TABLE rollout ADD COLUMN current_wave integer NOT NULL DEFAULT 1');
    await q.query('ALTER TABLE rollout ADD COLUMN awaiting_approval boolean NOT NULL DEFAULT false');
    await q.query('ALTER TABLE rollout ADD COLUMN pause_reason varchar(512)');
    await q.query(`ALTER TABLE rollout ADD COLUMN wave_starts varchar(1024) NOT NULL DEFAULT '[]'`);
    await q.createTable(
      new Table({
        name: 'rollout_device_state',
        columns: [
          { name: 'rollout_id', type: 'integer', isPrimary: true },
          { name: 'device_id', type: 'integer', isPrimary: true },
          { name: 'wave', type: 'integer' },
          { name: 'state', type: 'varchar', length: '16' },
          { name: 'attempts', type: 'integer', default: 0 },
          { name: 'offered_at', type: 'bigint', isNullable: true },
          { name: 'downloading_at', type: 'bigint', isNullable: true },
          { name: 'installed_at', type: 'bigint', isNullable: true },
          { name: 'confirmed_at', type: 'bigint', isNullable: true },
          { name: 'failed_at', type: 'bigint', isNullable: true },
          { name: 'reported_version', type: 'varchar', length: '64', isNullable: true },
          { name: 'failure_message', type: 'varchar', length: '500', isNullable: true },
          { name: 'updated_at', type: 'bigint' },
        ],
        indices: [
          { name: 'IDX_rollout_device_state_wave', columnNames: ['rollout_id', 'wave', 'state'] },
          { name: 'IDX_rollout_device_state_state', columnNames: ['state', 'updated_at'] },
          { name: 'IDX_rollout_device_state_device', columnNames: ['device_id', 'state'] },
        ],
        foreignKeys: [references('rollout', 'rollout_id'), references('device', 'device_id')],
      }),
    );
    await q.createTable(
      new Table({
        name: 'rollout_device_transition',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'rollout_id', type: 'integer' },
          { name: 'device_id', type: 'integer' },
          { name: 'state', type: 'varchar', length: '16' },
          { name: 'at', type: 'bigint' },
          { name: 'message', type: 'varchar', length: '500', isNullable: true },
        ],
        indices: [{ name: 'IDX_rollout_device_transition_device', columnNames: ['device_id', 'rollout_id', 'id'] }],
        foreignKeys: [references('rollout', 'rollout_id'), references('device', 'device_id')],
      }),
    );
    const recorded = `FROM rollout_success s JOIN rollout r ON r.id = s.rollout_id JOIN firmware f ON f.id = r.firmware_id
      JOIN device d ON d.id = s.device_id`;
    await q.query(
      `INSERT INTO rollout_device_state (rollout_id, device_id, wave, state, attempts, installed_at, confirmed_at, reported_version, updated_at)
       SELECT s.rollout_id, s.device_id, 1, CASE WHEN d.firmware_version = f.version THEN 'confirmed' ELSE 'installed' END, 1,
         s.created_at, CASE WHEN d.firmware_version = f.version THEN s.created_at ELSE NULL END, s.firmware_version, s.created_at
       ${recorded}`,
    );
    await q.query(
      `INSERT INTO rollout_device_transition (rollout_id, device_id, state, at, message)
       SELECT s.rollout_id, s.device_id, 'installed', s.created_at, NULL ${recorded}`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('rollout_device_transition');
    await q.dropTable('rollout_device_state');
    for (const column of [
      'wave_starts',
      'pause_reason',
      'awaiting_approval',
      'current_wave',
      'approval',
      'error_threshold',
      'success_threshold',
      'waves',
    ]) {
      await q.dropColumn('rollout', column);
    }
  }
}
