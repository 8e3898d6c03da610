import { MigrationInterface, QueryRunner, Table } from 'typeorm';

/**
 * Operator accounts and console sessions; a role on operator tokens (every existing token becomes
 * `admin`, what it could do before); and the actor of each ledger entry (existing entries have
 * none: their hashes do not change). Columns are added with plain `ALTER TABLE … ADD COLUMN`, the
 * same statement on SQLite and PostgreSQL, so a long ledger is not copied.
 */
export class OperatorAccounts1764200000000 implements MigrationInterface {
  name = 'OperatorAccounts1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'operator_user',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'username', type: 'varchar', length: '64', isUnique: true },
          { name: 'password_hash', type: 'varchar', length: '255' },
          { name: 'role', type: 'varchar', length: '16' },
          { name: 'disabled_at', type: 'bigint', isNullable: true },
          { name: 'created_at', type: 'bigint' },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'operator_session',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'user_id', type: 'integer' },
          { name: 'created_at', type: 'bigint' },
          { name: 'last_seen_at', type: 'bigint' },
          { name: 'expires_at', type: 'bigint' },
        ],
        foreignKeys: [
          { columnNames: ['user_id'], referencedTableName: 'operator_user', referencedColumnNames: ['id'], onDelete: 'CASCADE' },
        ],
        indices: [
          { name: 'IDX_operator_session_user', columnNames: ['user_id'] },
          { name: 'IDX_operator_session_expires', columnNames: ['expires_at'] },
        ],
      }),
    );
    await q.query(`ALTER TABLE operator_token ADD COLUMN role varchar(16) NOT NULL DEFAULT 'admin'`);
    await q.query('ALTER TABLE ledger_entry ADD COLUMN actor varchar(200)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('ledger_entry', 'actor');
    await q.dropColumn('operator_token', 'role');
    await q.dropTable('operator_session');
    await q.dropTable('operator_user');
  }
}
