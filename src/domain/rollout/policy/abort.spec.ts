import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { noDevices, type StateCounts } from './device-states.js';
import { abortReason, firedCriterion, parseAbortCriteria, storedAbortCriteriaOf, type AbortCriterion } from './abort.js';

function devices(states: Partial<Omit<StateCounts, 'targeted'>>): StateCounts {
  const counts = { ...noDevices(), ...states };
  counts.targeted = Object.values(states).reduce((n, v) => n + (v ?? 0), 0);
  return counts;
}

const criterion = (overrides: Partial<AbortCriterion> = {}): AbortCriterion => ({
  failure: 'failed',
  thresholdPercentage: 10,
  minFinished: 20,
  action: 'pause',
  ...overrides,
});

describe(firedCriterion.name, () => {
  it('fires once min_finished devices finished and the share of the failure kind reaches the percentage', () => {
    const c = criterion();
    assert.equal(firedCriterion([c], devices({ confirmed: 17, failed: 2, offered: 50 })), null, '19 finished: below min_finished');
    assert.deepEqual(firedCriterion([c], devices({ confirmed: 18, failed: 2, offered: 50 })), {
      criterion: c,
      finished: 20,
      failures: 2,
      percentage: 10,
    });
    assert.equal(firedCriterion([c], devices({ confirmed: 19, failed: 2 })), null, '2 of 21: 9.5%, below 10%');
  });

  it('counts confirmed, failed, fell back and timed out as finished; pending, offered, downloading, installed not', () => {
    const c = criterion({ failure: 'timed_out', thresholdPercentage: 50, minFinished: 4 });
    const fired = firedCriterion([c], devices({ confirmed: 1, failed: 1, fell_back: 0, timed_out: 2, pending: 9, installed: 9 }));
    assert.deepEqual(fired && [fired.finished, fired.failures], [4, 2]);
  });

  it('`all` counts failed, fell back and timed out together', () => {
    const c = criterion({ failure: 'all', thresholdPercentage: 30, minFinished: 10 });
    const fired = firedCriterion([c], devices({ confirmed: 7, failed: 1, fell_back: 1, timed_out: 1 }));
    assert.deepEqual(fired && [fired.failures, fired.percentage], [3, 30]);
  });

  it('returns the first criterion that fires, in the rollout’s order', () => {
    const pause = criterion({ failure: 'fell_back', thresholdPercentage: 5, minFinished: 1 });
    const cancel = criterion({ failure: 'all', thresholdPercentage: 5, minFinished: 1, action: 'cancel' });
    const counts = devices({ confirmed: 9, fell_back: 1 });
    assert.equal(firedCriterion([pause, cancel], counts)?.criterion, pause);
    assert.equal(firedCriterion([cancel, pause], counts)?.criterion, cancel);
    assert.equal(firedCriterion([], counts), null);
  });

  it('says why in words with the numbers', () => {
    const fired = firedCriterion([criterion({ thresholdPercentage: 12.5, minFinished: 8 })], devices({ confirmed: 7, failed: 1 }))!;
    assert.equal(abortReason(fired), 'abort criterion failed 12.5% (min 8 finished, pause): 1 of 8 finished devices failed (12.5%)');
  });
});

describe(parseAbortCriteria.name, () => {
  it('reads the operator API’s criteria', () => {
    assert.deepEqual(
      parseAbortCriteria([
        { failure: 'failed', threshold_percentage: 10, min_finished: 20, action: 'pause' },
        { failure: 'all', threshold_percentage: 100, min_finished: 1, action: 'cancel' },
      ]),
      { criteria: [criterion(), { failure: 'all', thresholdPercentage: 100, minFinished: 1, action: 'cancel' }] },
    );
    assert.deepEqual(parseAbortCriteria([]), { criteria: [] });
  });

  it('names the field of what is wrong', () => {
    const good = { failure: 'failed', threshold_percentage: 10, min_finished: 20, action: 'pause' };
    const cases: [unknown, string][] = [
      [{}, 'abort_criteria'],
      [Array.from({ length: 11 }, () => good), 'abort_criteria'],
      [[good, 'x'], 'abort_criteria[1]'],
      [[{ ...good, failure: 'installed' }], 'abort_criteria[0].failure'],
      [[{ ...good, threshold_percentage: 0 }], 'abort_criteria[0].threshold_percentage'],
      [[{ ...good, threshold_percentage: 100.5 }], 'abort_criteria[0].threshold_percentage'],
      [[{ ...good, threshold_percentage: '10' }], 'abort_criteria[0].threshold_percentage'],
      [[{ ...good, min_finished: 0 }], 'abort_criteria[0].min_finished'],
      [[{ ...good, min_finished: 1.5 }], 'abort_criteria[0].min_finished'],
      [[good, { ...good, action: 'stop' }], 'abort_criteria[1].action'],
    ];
    for (const [input, field] of cases) {
      const parsed = parseAbortCriteria(input);
      assert.ok('error' in parsed, JSON.stringify(input));
      assert.equal(parsed.error.field, field, JSON.stringify(input));
      assert.ok(parsed.error.message.startsWith(field), parsed.error.message);
    }
  });

  it('reads what it stored back', () => {
    const parsed = parseAbortCriteria([{ failure: 'timed_out', threshold_percentage: 50, min_finished: 2, action: 'pause' }]);
    assert.ok('criteria' in parsed);
    assert.deepEqual(storedAbortCriteriaOf(JSON.stringify(parsed.criteria)), parsed.criteria);
    assert.deepEqual(storedAbortCriteriaOf('[]'), []);
  });
});
