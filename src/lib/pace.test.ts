import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Pace } from './pace.ts';

const limits = fc.record({
  perSecond: fc.integer({ min: 1, max: 10_000 }),
  burst: fc.integer({ min: 0, max: 1000 }),
  maxWaitMs: fc.integer({ min: 0, max: 10_000 }),
});
/** Reservations: units, and the milliseconds since the one before. */
const calls = fc.array(
  fc.tuple(fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 0, max: 500 })),
  { minLength: 1, maxLength: 60 },
);

describe('Pace', () => {
  it('never starts more than the burst plus the rate over the time since the first call (generated)', () => {
    fc.assert(
      fc.property(limits, calls, (given, sequence) => {
        const pace = new Pace(given);
        const first = 1000;
        let now = first;
        let taken = 0;
        for (const [units, gap] of sequence) {
          now += gap;
          const waitMs = pace.reserve(units, now);
          if (waitMs === undefined) continue;
          expect(waitMs).toBeGreaterThanOrEqual(0);
          expect(waitMs).toBeLessThanOrEqual(given.maxWaitMs);
          taken += units;
          const startsAt = now + waitMs;
          const allowed = given.burst + (given.perSecond * (startsAt - first)) / 1000;
          expect(taken).toBeLessThanOrEqual(allowed + 1e-6);
        }
      }),
    );
  });

  it('lets work within the burst start at once once it has been idle, and a refusal takes nothing (generated)', () => {
    fc.assert(
      fc.property(limits, calls, (given, sequence) => {
        const pace = new Pace(given);
        let now = 0;
        for (const [units, gap] of sequence) {
          now += gap;
          if (pace.isIdle(now) && units <= given.burst) expect(pace.reserve(units, now)).toBe(0);
          else if (pace.reserve(units, now) === undefined) {
            expect(pace.reserve(units, now)).toBeUndefined();
          }
        }
      }),
      // A whole burst after an idle spell, where rounding once made a wait of 1e-14 ms.
      { examples: [[{ perSecond: 6455, burst: 993, maxWaitMs: 0 }, [[993, 103]]]] },
    );
  });

  it('spaces work past the burst at the rate', () => {
    const pace = new Pace({ perSecond: 10, burst: 2, maxWaitMs: 1000 });
    expect([1, 1, 1, 1].map(() => pace.reserve(1, 0))).toEqual([0, 0, 100, 200]);
    expect(pace.reserve(100, 0)).toBeUndefined();
    expect(pace.reserve(1, 1000)).toBe(0);
  });

  it('refuses limits that admit nothing', () => {
    expect(() => new Pace({ perSecond: 0, burst: 1, maxWaitMs: 1 })).toThrow(RangeError);
  });
});
