import type { User } from '../users/user.types.ts';

export const COMMIT_STATUS_STATES = ['pending', 'success', 'error', 'failure', 'warning'] as const;
export type CommitStatusState = (typeof COMMIT_STATUS_STATES)[number];

/** A status as posted: echoed back to its poster and not kept. */
export type CommitStatus = {
  readonly id: string;
  readonly sha: string;
  readonly state: CommitStatusState;
  readonly targetUrl: string;
  readonly description: string;
  readonly context: string;
  readonly creator: User;
  readonly createdAt: Date;
};

export type PostStatusInput = {
  readonly state: CommitStatusState;
  readonly targetUrl?: string | undefined;
  readonly description?: string | undefined;
  readonly context?: string | undefined;
};
