import type { Side } from './review-anchor.ts';

export type ReviewComment = {
  readonly id: string;
  readonly pullId: string;
  readonly authorId: string;
  readonly body: string;
  readonly path: string;
  readonly line: number | null;
  readonly oldLine: number | null;
  readonly side: Side;
  readonly commitId: string;
  readonly originalCommitId: string;
  readonly diffHunk: string;
  readonly inReplyToId: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** Set on a thread's first comment when the thread is resolved: who and when. */
  readonly resolvedById: string | null;
  readonly resolvedAt: Date | null;
  /** The review that carries this comment; null for a line comment made on its own. */
  readonly reviewId: string | null;
};
