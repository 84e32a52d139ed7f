/** RFC 3339 in UTC at second precision, as Gitea writes times (`2024-05-01T12:34:56Z`). */
export function rfc3339(date: Date): string {
  const iso = date.toISOString();
  // `YYYY-MM-DDTHH:MM:SS.sssZ`; only years beyond 9999 are longer.
  return iso.length === 24 ? `${iso.slice(0, 19)}Z` : iso.replace(/\.\d{3}Z$/, 'Z');
}

/** Go's zero time, which Gitea emits for unset non-pointer times. */
export const GO_ZERO_TIME = '0001-01-01T00:00:00Z';

let lastMonotonic = 0;

/**
 * Now, but always later than the last time this returned in this process. Comments and reviews
 * have random ids, so two made in the same millisecond (a reply posted by a script right after
 * its parent) would sort by chance where pages sort by time then id; a strictly later time keeps
 * them in the order they were made.
 */
export function monotonicNow(): Date {
  const now = Math.max(Date.now(), lastMonotonic + 1);
  lastMonotonic = now;
  return new Date(now);
}
