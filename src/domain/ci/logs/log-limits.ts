/**
 * How much log a runner may upload. Invariant: a task's stored log never exceeds its byte and row
 * caps (plus the one row saying it was truncated), and no row is stored for a task of a
 * repository whose stored logs already reach the repository cap; one UpdateLog call stores at
 * most `MAX_ROWS_PER_CALL` rows. docs/runners.md (limits) and docs/security.md explain them.
 */
export type LogLimits = {
  /** Stored bytes of one task's log (timestamps and newlines included). */
  readonly maxBytesPerTask: number;
  /** Stored rows of one task's log. */
  readonly maxRowsPerTask: number;
  /** Stored bytes of the logs of all tasks of one repository still kept. */
  readonly maxBytesPerRepo: number;
};

const MIB = 1024 * 1024;

/**
 * The defaults: GitHub truncates a step's log near 64 MB; a million rows is ten times what a
 * verbose build prints; a repository's logs are kept for `service.ci.log-retention` (90 days),
 * and 4 GiB holds that long of 20 runs a day of 2 MB each.
 */
export const DEFAULT_LOG_LIMITS: LogLimits = {
  maxBytesPerTask: 64 * MIB,
  maxRowsPerTask: 1_000_000,
  maxBytesPerRepo: 4096 * MIB,
};

/**
 * Rows stored from one UpdateLog call. Rows past it are not stored and not acknowledged: the
 * runner keeps them and sends them in its next call, as it does any row not acknowledged. The
 * built-in runner sends at most this many.
 */
export const MAX_ROWS_PER_CALL = 5000;
