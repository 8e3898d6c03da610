import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { failureSummary } from './device-rollout.service.js';

describe(failureSummary.name, () => {
  const line = (level: string, message: string) => ({ level, message, timestamp: '2026-12-01T09:00:00Z' });

  it('names the error lines of a log, else its last three lines', () => {
    assert.equal(
      failureSummary([
        line('info', 'start'),
        line('error', 'Artifact install failed'),
        line('debug', 'x'),
        line('error', ' Cleanup failed '),
      ]),
      'Artifact install failed; Cleanup failed',
    );
    assert.equal(failureSummary([line('info', 'a'), line('info', 'b'), line('info', 'c'), line('info', 'd')]), 'b; c; d');
    assert.equal(failureSummary([]), null);
    assert.equal(failureSummary([line('ERROR', 'e'.repeat(600))])?.length, 500);
  });
});
