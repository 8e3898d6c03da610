import { MigrationInterface, QueryRunner, Table } from 'typeorm';

/** Operator tokens: bearer credentials of the operator API, stored as SHA-256 digests. */
export class OperatorTokens1763800000000 implements MigrationInterface {
  name = 'OperatorTokens1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'operator_token',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'name', type: 'varchar', length: '128' },
          { name: 'token_hash', type: 'varchar', length: '64', isUnique: true },
          { name: 'token_hint', type: 'varchar', length: '16' },
          { name: 'revoked_at', type: 'bigint', isNullable: true },
          { name: 'created_at', type: 'bigint' },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('operator_token');
  }
}
