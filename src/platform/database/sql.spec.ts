import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bind } from './sql.js';

describe(bind.name, () => {
  it('keeps $n placeholders for PostgreSQL', () => {
    assert.deepEqual(bind('postgres', 'SELECT $1, $2, $1', [1, 2]), ['SELECT $1, $2, $1', [1, 2]]);
  });

  for (const type of ['sqlite', 'better-sqlite3'] as const) {
    it(`turns $n into ? and repeats parameters in order of appearance for ${type}`, () => {
      assert.deepEqual(bind(type, 'UPDATE t SET a = CASE WHEN b <= $3 THEN $2 ELSE $1 END WHERE c = $3', ['x', 'y', 'z']), [
        'UPDATE t SET a = CASE WHEN b <= ? THEN ? ELSE ? END WHERE c = ?',
        ['z', 'y', 'x', 'z'],
      ]);
    });
  }

  it('reads multi-digit placeholders whole', () => {
    const parameters = Array.from({ length: 12 }, (_, i) => i + 1);
    assert.deepEqual(bind('sqlite', 'VALUES ($12, $1, $10)', parameters), ['VALUES (?, ?, ?)', [12, 1, 10]]);
  });
});
