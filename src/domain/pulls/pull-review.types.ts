import type { ReviewState } from '../../db/tables.ts';

export type { ReviewState };

/** The verdicts a submitted review may carry (everything but `PENDING`). */
export const REVIEW_VERDICTS = ['APPROVED', 'REQUEST_CHANGES', 'COMMENT'] as const;
export type ReviewVerdict = (typeof REVIEW_VERDICTS)[number];

/** A review of a pull request: a verdict, a body and the line comments it carries. */
export type PullReview = {
  readonly id: string;
  readonly pullId: string;
  readonly reviewerId: string;
  readonly state: ReviewState;
  readonly body: string;
  /** The pull's head when the review was submitted (or started, while pending). */
  readonly commitId: string;
  /** Made by someone whose approval counts toward the base branch's required approvals. */
  readonly official: boolean;
  readonly dismissed: boolean;
  readonly dismissedById: string | null;
  readonly dismissMessage: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly submittedAt: Date | null;
};

/** One line comment of a new review, in Gitea's terms: a line on the new or the old side. */
export type NewReviewLineComment = {
  readonly path: string;
  readonly body: string;
  /** A line of the new file (Gitea's `new_position`); 0 or absent when on the old side. */
  readonly newLine?: number | undefined;
  /** A line of the old file (Gitea's `old_position`). */
  readonly oldLine?: number | undefined;
};

/** A review as it is created: `event` absent (or `PENDING`) keeps it pending. */
export type NewPullReview = {
  readonly event?: ReviewState | undefined;
  readonly body?: string | undefined;
  readonly commitId?: string | undefined;
  readonly comments?: readonly NewReviewLineComment[] | undefined;
};
