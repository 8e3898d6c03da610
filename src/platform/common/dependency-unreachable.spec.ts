import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import pg from 'pg';
import Database from 'better-sqlite3';
import { isDatabaseUnreachable } from './dependency-unreachable.js';

/** An error shaped as TypeORM's QueryFailedError carries the driver's. */
const failed = (driverError: object) => Object.assign(new Error('query failed'), { driverError });

/** What pg rejects with when nothing listens on the port (a PostgreSQL that is down). */
async function refusedConnection(): Promise<unknown> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as { port: number };
  await new Promise((closed) => server.close(closed));
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'nobody', database: 'none' });
  try {
    await client.connect();
  } catch (error) {
    return error;
  }
  assert.fail('connected to a closed port');
}

describe(isDatabaseUnreachable.name, () => {
  it("recognises pg's refused connection, as it is and wrapped", async () => {
    const error = await refusedConnection();
    assert.equal(isDatabaseUnreachable(error), true);
    assert.equal(isDatabaseUnreachable(failed(error as object)), true);
  });

  it("recognises pg's broken connections, its pool's timeouts and PostgreSQL's 'not now' codes", () => {
    for (const message of [
      'Connection terminated unexpectedly',
      'Connection terminated due to connection timeout',
      'timeout exceeded when trying to connect',
      'Client has encountered a connection error and is not queryable',
      'Client was closed and is not queryable',
    ]) {
      assert.equal(isDatabaseUnreachable(new Error(message)), true, message);
    }
    for (const code of ['57P01', '57P03', '53300', '08006', '08001']) {
      assert.equal(isDatabaseUnreachable(failed({ code, message: 'x' })), true, code);
    }
  });

  it('leaves failed statements, SQLite and socket errors of anything else alone (they stay 500)', () => {
    for (const code of ['23505', '42601', '40001', '22P02']) {
      assert.equal(isDatabaseUnreachable(failed({ code, message: 'x' })), false, code);
    }
    const db = new Database(':memory:');
    try {
      db.prepare('SELECT * FROM nothing').all();
      assert.fail('selected from a missing table');
    } catch (error) {
      assert.equal(isDatabaseUnreachable(error), false, 'a SQLite error');
      assert.equal(isDatabaseUnreachable(failed(error as object)), false, 'a SQLite error, wrapped');
    } finally {
      db.close();
    }
    assert.equal(isDatabaseUnreachable(failed({ code: 'SQLITE_BUSY', message: 'database is locked' })), false, 'SQLITE_BUSY');
    const fetchFailed = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }),
    });
    assert.equal(isDatabaseUnreachable(fetchFailed), false, "a witness's refused fetch");
    assert.equal(isDatabaseUnreachable(null), false);
    assert.equal(isDatabaseUnreachable('Connection terminated'), false);
  });
});
