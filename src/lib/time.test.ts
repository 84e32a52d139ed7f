import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { monotonicNow, rfc3339 } from './time.ts';

describe('monotonicNow', () => {
  it('is strictly later at each call, however many are made in one millisecond', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 500 }), (calls) => {
        const times = Array.from({ length: calls }, () => monotonicNow().getTime());
        for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThan(times[i - 1] ?? 0);
      }),
    );
  });
});

describe('rfc3339', () => {
  it('writes UTC at second precision', () => {
    expect(rfc3339(new Date('2024-05-01T12:34:56.789Z'))).toBe('2024-05-01T12:34:56Z');
  });
});
