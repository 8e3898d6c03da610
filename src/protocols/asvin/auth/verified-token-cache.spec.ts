import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { VerifiedTokenCache } from './verified-token-cache.js';

describe(VerifiedTokenCache.name, () => {
  it('answers a cached token until its exp, and drops it once the clock reaches exp', () => {
    const cache = new VerifiedTokenCache<{ exp: number; sub: string }>();
    cache.set('t', { exp: 1000, sub: '1' });
    assert.deepEqual(cache.get('t', 999), { exp: 1000, sub: '1' });
    assert.equal(cache.get('t', 1000), undefined, 'expired at exp, as jsonwebtoken has it');
    assert.equal(cache.size, 0, 'the expired entry is gone');
    assert.equal(cache.get('t', 1), undefined, 'and is not answered for an earlier clock either');
  });

  it('caches nothing without a numeric exp', () => {
    const cache = new VerifiedTokenCache<{ exp: number }>();
    cache.set('t', {} as { exp: number });
    cache.set('u', { exp: Number.NaN });
    assert.equal(cache.size, 0);
  });

  it('is bounded: the entry cached longest ago is dropped first', () => {
    const cache = new VerifiedTokenCache<{ exp: number }>(2);
    cache.set('a', { exp: 10 });
    cache.set('b', { exp: 10 });
    cache.set('a', { exp: 10 }); // already there: nothing dropped
    assert.equal(cache.size, 2);
    cache.set('c', { exp: 10 });
    assert.equal(cache.size, 2);
    assert.equal(cache.get('a', 0), undefined);
    assert.ok(cache.get('b', 0));
    assert.ok(cache.get('c', 0));
  });
});
