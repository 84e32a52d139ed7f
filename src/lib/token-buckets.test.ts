import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TokenBuckets } from './token-buckets.ts';

describe('TokenBuckets', () => {
  it('lets a full bucket through, then refuses with the seconds until a token is back', () => {
    const buckets = new TokenBuckets({ capacity: 3, refillMs: 60_000 });
    for (let i = 0; i < 3; i++) expect(buckets.take('a', 0).ok).toBe(true);
    expect(buckets.take('a', 0)).toEqual({ ok: false, retryAfterSeconds: 20 });
    // Another key has a bucket of its own.
    expect(buckets.take('b', 0).ok).toBe(true);
    expect(buckets.take('a', 20_000).ok).toBe(true);
  });

  it('never lets more through than the capacity plus what refilled', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.array(fc.integer({ min: 0, max: 5_000 }), { minLength: 1, maxLength: 300 }),
        (capacity, gaps) => {
          const refillMs = 60_000;
          const buckets = new TokenBuckets({ capacity, refillMs });
          let now = 0;
          let passed = 0;
          for (const gap of gaps) {
            now += gap;
            const taken = buckets.take('k', now);
            if (taken.ok) passed += 1;
            else expect(taken.retryAfterSeconds).toBeGreaterThanOrEqual(1);
          }
          expect(passed).toBeLessThanOrEqual(capacity + Math.floor((now * capacity) / refillMs));
        },
      ),
    );
  });
});
