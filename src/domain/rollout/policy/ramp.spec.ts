import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { minuteOf, parseRamp, rampAllowance, rampRate, type RampPlan } from './ramp.js';

const plan: RampPlan = {
  basePerMinute: 10,
  incrementFactor: 2,
  incrementEvery: { criterion: 'confirmed', count: 100 },
  maximumPerMinute: 1000,
};

describe(rampRate.name, () => {
  it('multiplies the base rate by the factor at each increment, rounded down, capped at the maximum', () => {
    assert.deepEqual(
      [0, 1, 2, 3, 6, 7, 50].map((k) => rampRate(plan, k)),
      [10, 20, 40, 80, 640, 1000, 1000],
    );
    const odd: RampPlan = { ...plan, basePerMinute: 3, incrementFactor: 1.5, maximumPerMinute: 7 };
    assert.deepEqual(
      [0, 1, 2, 3].map((k) => rampRate(odd, k)),
      [3, 4, 6, 7],
    );
    assert.equal(rampRate({ ...plan, incrementFactor: 5 }, 10_000), 1000, 'no overflow');
  });
});

describe(rampAllowance.name, () => {
  it('counts one increment per full increment_every of its criterion', () => {
    assert.equal(rampAllowance(plan, { offered: 10_000, confirmed: 99 }), 10);
    assert.equal(rampAllowance(plan, { offered: 0, confirmed: 100 }), 20);
    assert.equal(rampAllowance(plan, { offered: 0, confirmed: 250 }), 40);
    const byOffers: RampPlan = { ...plan, incrementEvery: { criterion: 'offered', count: 5 } };
    assert.equal(rampAllowance(byOffers, { offered: 12, confirmed: 0 }), 40);
  });

  it('counts in epoch minutes', () => {
    assert.equal(minuteOf(59_999), 0);
    assert.equal(minuteOf(60_000), 1);
  });
});

describe(parseRamp.name, () => {
  const field = (input: unknown) => {
    const parsed = parseRamp(input);
    return 'error' in parsed ? parsed.error.field : undefined;
  };
  const good = { base_per_minute: 10, increment_factor: 2, increment_every: { confirmed: 100 }, maximum_per_minute: 1000 };

  it('reads a ramp', () => {
    assert.deepEqual(parseRamp(good), { ramp: plan });
    assert.deepEqual(parseRamp({ ...good, increment_every: { offered: 5 } }), {
      ramp: { ...plan, incrementEvery: { criterion: 'offered', count: 5 } },
    });
  });

  it('names the field out of range', () => {
    assert.equal(field(null), 'ramp');
    assert.equal(field({ ...good, base_per_minute: 0 }), 'ramp.base_per_minute');
    assert.equal(field({ ...good, base_per_minute: 1001 }), 'ramp.base_per_minute');
    assert.equal(field({ ...good, increment_factor: 1.05 }), 'ramp.increment_factor');
    assert.equal(field({ ...good, increment_factor: 5.5 }), 'ramp.increment_factor');
    assert.equal(field({ ...good, increment_every: { succeeded: 5 } }), 'ramp.increment_every');
    assert.equal(field({ ...good, increment_every: { offered: 1, confirmed: 1 } }), 'ramp.increment_every');
    assert.equal(field({ ...good, increment_every: { confirmed: 0 } }), 'ramp.increment_every.confirmed');
    assert.equal(field({ ...good, maximum_per_minute: 5 }), 'ramp.maximum_per_minute');
    assert.equal(field({ ...good, maximum_per_minute: 1001 }), 'ramp.maximum_per_minute');
  });
});
