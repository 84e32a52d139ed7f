import { describe, expect, it } from 'vitest';
import { cronMatches, parseCron } from './cron.ts';

const at = (iso: string) => new Date(iso);

describe('cron', () => {
  it('matches minutes, steps, ranges, lists and names in UTC', () => {
    const every15 = parseCron('*/15 * * * *');
    expect(cronMatches(every15, at('2026-03-02T10:30:00Z'))).toBe(true);
    expect(cronMatches(every15, at('2026-03-02T10:31:00Z'))).toBe(false);
    const weekdays = parseCron('0 9 * * mon-fri');
    expect(cronMatches(weekdays, at('2026-03-02T09:00:00Z'))).toBe(true); // Monday
    expect(cronMatches(weekdays, at('2026-03-01T09:00:00Z'))).toBe(false); // Sunday
    const list = parseCron('5,10 0-2 1 jan,jul *');
    expect(cronMatches(list, at('2026-07-01T02:10:00Z'))).toBe(true);
    expect(cronMatches(list, at('2026-08-01T02:10:00Z'))).toBe(false);
  });

  it('treats 7 as Sunday and either restricted day field as enough', () => {
    expect(cronMatches(parseCron('0 0 * * 7'), at('2026-03-01T00:00:00Z'))).toBe(true);
    const either = parseCron('0 0 13 * fri');
    expect(cronMatches(either, at('2026-03-13T00:00:00Z'))).toBe(true); // the 13th
    expect(cronMatches(either, at('2026-03-06T00:00:00Z'))).toBe(true); // a Friday
    expect(cronMatches(either, at('2026-03-07T00:00:00Z'))).toBe(false);
  });

  it('refuses malformed lines with the field named', () => {
    expect(() => parseCron('* * * *')).toThrow(/five fields/);
    expect(() => parseCron('60 * * * *')).toThrow(/minute/);
    expect(() => parseCron('* * * foo *')).toThrow(/month/);
    expect(() => parseCron('*/0 * * * *')).toThrow(/step/);
  });
});
