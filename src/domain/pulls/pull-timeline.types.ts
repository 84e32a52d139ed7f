import type { PullTimelineKind } from '../../db/tables.ts';

export type { PullTimelineKind };

/** Something that happened to a pull besides its reviews, for its timeline. */
export type PullTimelineEntry = {
  readonly id: string;
  readonly pullId: string;
  readonly kind: PullTimelineKind;
  readonly actorId: string | null;
  readonly oldSha: string | null;
  readonly newSha: string | null;
  /** Commits a push added. */
  readonly commits: number;
  /** What an administrator's merge went past, one blocker a line. */
  readonly note: string | null;
  readonly createdAt: Date;
};
