import { type Html, trusted } from '../html.ts';

const UNITS: ReadonlyArray<[string, number]> = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

/** "3 days ago", "just now", "in 2 hours"; dates are rendered on the server, no script needed. */
export function timeAgo(date: Date, now: Date = new Date()): string {
  const seconds = Math.round((now.getTime() - date.getTime()) / 1000);
  const abs = Math.abs(seconds);
  for (const [unit, size] of UNITS) {
    if (abs >= size) {
      const count = Math.floor(abs / size);
      const label = `${count} ${unit}${count === 1 ? '' : 's'}`;
      return seconds >= 0 ? `${label} ago` : `in ${label}`;
    }
  }
  return 'just now';
}

/**
 * One formatter for every short date: `toLocaleDateString` with options builds a new one on
 * each call, which cost a history page of 30 commits about 1.6 ms. Made on first use, not at
 * start: building one loads ICU's locale data, about 6 MB resident that an idle server (or one
 * serving only git and the API) does not need.
 */
let shortDateFormat: Intl.DateTimeFormat | undefined;

/** "Nov 21, 2025" in UTC. */
export function shortDate(date: Date): string {
  shortDateFormat ??= new Intl.DateTimeFormat('en-US', {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    timeZone: 'UTC',
  });
  return shortDateFormat.format(date);
}

/**
 * A `<time>` with a relative label and the exact UTC time as its tooltip. Written as text, not
 * through `html`: an ISO time and `timeAgo`'s label hold only digits, letters, `+`, `-`, `:`,
 * `.` and spaces, so there is nothing to escape, and a pull's page draws one per comment.
 */
export function relativeTime(date: Date): Html {
  const iso = date.toISOString();
  return trusted(
    `<time datetime="${iso}" title="${iso.slice(0, 16).replace('T', ' ')} UTC">${timeAgo(date)}</time>`,
  );
}

/** A git signature time (seconds since the epoch) as a Date. */
export function fromEpochSeconds(seconds: number): Date {
  return new Date(seconds * 1000);
}
