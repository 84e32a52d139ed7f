import { Invalid } from '../../errors.ts';

const DAY_MS = 86_400_000;

/**
 * When an artifact made at `now` expires: after the `retention-days` its workflow asked for,
 * never later than `maxMs` (`service.ci.artifact-retention`). Absent means the longest.
 * @throws Invalid for a retention that is not a whole number of days of at least one
 */
export function artifactExpiry(now: number, requestedDays: unknown, maxMs: number): Date {
  if (requestedDays === undefined || requestedDays === null || requestedDays === 0) {
    return new Date(now + maxMs);
  }
  const days = typeof requestedDays === 'string' ? Number(requestedDays) : requestedDays;
  if (typeof days !== 'number' || !Number.isInteger(days) || days < 1) {
    throw new Invalid('retention days must be a whole number of at least 1');
  }
  return new Date(now + Math.min(days * DAY_MS, maxMs));
}
