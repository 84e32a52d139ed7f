import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shortDate } from './time.ts';

describe('shortDate', () => {
  it('reads as the US English short date in UTC, for any date', () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => {
        const date = new Date(ms);
        const expected = date.toLocaleDateString('en-US', {
          year: 'numeric',
          month: 'short',
          day: 'numeric',
          timeZone: 'UTC',
        });
        expect(shortDate(date)).toBe(expected);
      }),
    );
    expect(shortDate(new Date(Date.UTC(2025, 10, 21, 23, 59)))).toBe('Nov 21, 2025');
  });
});
