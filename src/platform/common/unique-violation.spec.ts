import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { isUniqueViolation } from './unique-violation.js';

/** Errors shaped as TypeORM's QueryFailedError carries them: the driver's error and its code. */
const failed = (driverError: { code: string; message: string }) => Object.assign(new Error(driverError.message), { driverError });

describe(isUniqueViolation.name, () => {
  it("recognises PostgreSQL's unique_violation (23505), on the error or its driverError", () => {
    const pg = { code: '23505', message: 'duplicate key value violates unique constraint "UQ_device_tenant_mac"' };
    assert.equal(isUniqueViolation(failed(pg)), true);
    assert.equal(isUniqueViolation(Object.assign(new Error(pg.message), { code: '23505' })), true);
  });

  it("recognises SQLite's UNIQUE and PRIMARY KEY constraint failures", () => {
    assert.equal(
      isUniqueViolation(
        failed({ code: 'SQLITE_CONSTRAINT', message: 'SQLITE_CONSTRAINT: UNIQUE constraint failed: device.tenant_id, device.mac' }),
      ),
      true,
    );
    assert.equal(isUniqueViolation(failed({ code: 'SQLITE_CONSTRAINT', message: 'SQLITE_CONSTRAINT: PRIMARY KEY must be unique' })), true);
  });

  it("recognises better-sqlite3's own errors: SQLITE_CONSTRAINT_UNIQUE and _PRIMARYKEY, not _FOREIGNKEY", () => {
    const db = new Database(':memory:');
    try {
      db.pragma('foreign_keys = ON');
      db.exec('CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE c (k TEXT PRIMARY KEY, u TEXT UNIQUE, p INTEGER REFERENCES p (id))');
      db.prepare('INSERT INTO p (id) VALUES (1)').run();
      db.prepare("INSERT INTO c (k, u, p) VALUES ('a', 'x', 1)").run();
      const failure = (sql: string): unknown => {
        try {
          db.prepare(sql).run();
        } catch (error) {
          return error;
        }
        assert.fail(`${sql} did not fail`);
      };
      const unique = failure("INSERT INTO c (k, u) VALUES ('b', 'x')");
      const primaryKey = failure("INSERT INTO c (k) VALUES ('a')");
      const foreignKey = failure("INSERT INTO c (k, p) VALUES ('c', 2)");
      assert.deepEqual(
        [unique, primaryKey, foreignKey].map((e) => (e as { code: string }).code),
        ['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY', 'SQLITE_CONSTRAINT_FOREIGNKEY'],
      );
      assert.equal(isUniqueViolation(unique), true);
      assert.equal(isUniqueViolation(primaryKey), true);
      assert.equal(isUniqueViolation(foreignKey), false);
      // As TypeORM's QueryFailedError hands them on: the driver's message, its error under driverError.
      assert.equal(isUniqueViolation(failed(unique as { code: string; message: string })), true);
    } finally {
      db.close();
    }
  });

  it('does not take other failures for duplicates', () => {
    assert.equal(isUniqueViolation(failed({ code: '23503', message: 'insert or update violates foreign key constraint' })), false);
    assert.equal(isUniqueViolation(failed({ code: '40P01', message: 'deadlock detected' })), false);
    assert.equal(
      isUniqueViolation(failed({ code: 'SQLITE_CONSTRAINT', message: 'SQLITE_CONSTRAINT: FOREIGN KEY constraint failed' })),
      false,
    );
    assert.equal(isUniqueViolation(new Error('boom')), false);
    assert.equal(isUniqueViolation(null), false);
  });
});
