import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './duration.ts';

describe('parseDuration', () => {
  it.each([
    ['90s', 90_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1h30m', 5_400_000],
    ['250ms', 250],
    ['2d', 172_800_000],
  ])('reads %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '90', 's', '1x', '-1s', '1.5h', '1 h', 'h1', '1h 30m', '9'.repeat(40)])(
    'refuses %j',
    (text) => {
      expect(parseDuration(text)).toBeUndefined();
    },
  );

  it('round-trips through formatDuration', () => {
    for (const ms of [1000, 60_000, 3_600_000, 5_400_000, 250, 86_400_000 + 1000]) {
      expect(parseDuration(formatDuration(ms))).toBe(ms);
    }
  });
});
