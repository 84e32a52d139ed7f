/** What one maintenance run did, as kept for the admin page. */
export type HousekeepingRun = {
  /** The repository's directory, `owner/name` lowercased (`RepoHandle.key`). */
  readonly repoKey: string;
  /** The process that ran it. */
  readonly holder: string;
  readonly kind: 'incremental' | 'full';
  readonly outcome: 'ok' | 'failed';
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly packsBefore: number;
  readonly looseBefore: number;
  readonly packsAfter: number;
  readonly looseAfter: number;
  /** A short reason when it failed; never git's stderr. */
  readonly error: string | null;
};
