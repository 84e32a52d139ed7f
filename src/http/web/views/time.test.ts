import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../html.ts';
import { relativeTime, shortDate, timeAgo } from './time.ts';

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

describe('relativeTime', () => {
  it('holds nothing that escaping would change, for any date', () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => {
        const date = new Date(ms);
        const iso = date.toISOString();
        const label = timeAgo(date);
        expect(escapeHtml(iso)).toBe(iso);
        expect(escapeHtml(label)).toBe(label);
        expect(relativeTime(date).value).toContain(`datetime="${iso}"`);
      }),
    );
    expect(relativeTime(new Date(Date.UTC(2025, 10, 21, 23, 59))).value).toMatch(
      /^<time datetime="2025-11-21T23:59:00.000Z" title="2025-11-21 23:59 UTC">.+<\/time>$/,
    );
  });
});
