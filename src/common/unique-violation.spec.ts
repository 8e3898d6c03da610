import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
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
