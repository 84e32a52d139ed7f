/**
 * POSIX cron as `on.schedule[].cron` uses it (five fields, UTC): minute, hour, day of month,
 * month, day of week; each `*`, a number, a range `a-b`, a step `*\/n` or `a-b/n`, or a list of
 * those; months and weekdays also by English abbreviation (`jan`, `mon`); weekday 7 is Sunday
 * too. As in cron, when both day fields are restricted a day matching either is enough.
 */
export type CronSchedule = {
  readonly minutes: ReadonlySet<number>;
  readonly hours: ReadonlySet<number>;
  readonly days: ReadonlySet<number>;
  readonly months: ReadonlySet<number>;
  readonly weekdays: ReadonlySet<number>;
  readonly daysRestricted: boolean;
  readonly weekdaysRestricted: boolean;
};

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

/** Parses a cron line; throws an `Error` naming the field that is wrong. */
export function parseCron(line: string): CronSchedule {
  const fields = line.trim().split(/\s+/);
  if (fields.length !== 5) throw new Error(`cron "${line}" must have five fields`);
  const [minute, hour, day, month, weekday] = fields as [string, string, string, string, string];
  const weekdays = parseField(weekday, 0, 7, WEEKDAYS, 'day of week');
  if (weekdays.has(7)) weekdays.add(0);
  weekdays.delete(7);
  return {
    minutes: parseField(minute, 0, 59, [], 'minute'),
    hours: parseField(hour, 0, 23, [], 'hour'),
    days: parseField(day, 1, 31, [], 'day of month'),
    months: parseField(month, 1, 12, MONTHS, 'month', 1),
    weekdays,
    daysRestricted: day !== '*',
    weekdaysRestricted: weekday !== '*',
  };
}

function parseField(
  text: string,
  min: number,
  max: number,
  names: readonly string[],
  what: string,
  nameBase = 0,
): Set<number> {
  const values = new Set<number>();
  const value = (part: string): number => {
    const named = names.indexOf(part.toLowerCase());
    const number = named >= 0 ? named + nameBase : /^\d+$/.test(part) ? Number(part) : Number.NaN;
    if (!(number >= min && number <= max))
      throw new Error(`cron ${what} "${text}" is out of range`);
    return number;
  };
  for (const item of text.split(',')) {
    const [range = '', stepText] = item.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1)
      throw new Error(`cron ${what} "${text}" has a bad step`);
    let from: number;
    let to: number;
    if (range === '*') {
      from = min;
      to = max;
    } else if (range.includes('-')) {
      const [a = '', b = ''] = range.split('-');
      from = value(a);
      to = value(b);
    } else {
      from = value(range);
      to = stepText === undefined ? from : max;
    }
    if (from > to) throw new Error(`cron ${what} "${text}" has a backwards range`);
    for (let at = from; at <= to; at += step) values.add(at);
  }
  return values;
}

/** Whether the schedule fires in the minute of `date` (UTC). */
export function cronMatches(schedule: CronSchedule, date: Date): boolean {
  if (!schedule.minutes.has(date.getUTCMinutes())) return false;
  if (!schedule.hours.has(date.getUTCHours())) return false;
  if (!schedule.months.has(date.getUTCMonth() + 1)) return false;
  const day = schedule.days.has(date.getUTCDate());
  const weekday = schedule.weekdays.has(date.getUTCDay());
  if (schedule.daysRestricted && schedule.weekdaysRestricted) return day || weekday;
  return day && weekday;
}
