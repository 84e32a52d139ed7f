import type { Selectable } from 'kysely';
import type { PullRequestsTable } from '../../db/tables.ts';
import { contentHash } from '../../lib/content-hash.ts';
import type { Pull, PullSort } from './pull.types.ts';

/**
 * How a pull request is kept in its table: the columns read, the row as a `Pull`, what opening
 * and editing one write, and the columns each listing order sorts by.
 */

/** Every column but the body, which `KeptTexts` reads only when it does not hold it. */
export const PULL_COLUMNS = [
  'pull_requests.id',
  'pull_requests.repo_id',
  'pull_requests.number',
  'pull_requests.title',
  'pull_requests.body_hash',
  'pull_requests.state',
  'pull_requests.merged',
  'pull_requests.merged_at',
  'pull_requests.merge_commit_sha',
  'pull_requests.merged_by_id',
  'pull_requests.author_id',
  'pull_requests.assignee_id',
  'pull_requests.head_repo_id',
  'pull_requests.head_branch',
  'pull_requests.head_sha',
  'pull_requests.base_branch',
  'pull_requests.created_at',
  'pull_requests.updated_at',
  'pull_requests.closed_at',
] as const;

/** A pull's row without its body. */
export type PullRow = Omit<Selectable<PullRequestsTable>, 'body'>;

/** A pull from its row and its body. */
export function toPull(row: PullRow, body: string): Pull {
  const date = (value: number | null) => (value === null ? null : new Date(value));
  return {
    id: row.id,
    repoId: row.repo_id,
    number: Number(row.number),
    title: row.title,
    body,
    state: row.state,
    merged: Boolean(row.merged),
    mergedAt: date(row.merged_at),
    mergeCommitSha: row.merge_commit_sha,
    mergedById: row.merged_by_id,
    authorId: row.author_id,
    assigneeId: row.assignee_id,
    headRepoId: row.head_repo_id,
    headBranch: row.head_branch,
    headSha: row.head_sha,
    baseBranch: row.base_branch,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    closedAt: date(row.closed_at),
  };
}

/** A pull about to be opened: the store gives it its number, open and unmerged. */
export type NewPull = {
  readonly id: string;
  readonly repoId: string;
  readonly title: string;
  readonly body: string;
  readonly authorId: string;
  readonly headRepoId: string | null;
  readonly headBranch: string;
  readonly headSha: string;
  readonly baseBranch: string;
  /** Epoch milliseconds; also its first update time. */
  readonly createdAt: number;
};

/** The row of a pull being opened, all but its number: open, unmerged, its body hashed. */
export function newPullRow(pull: NewPull): Omit<PullRequestsTable, 'number'> {
  return {
    id: pull.id,
    repo_id: pull.repoId,
    title: pull.title,
    body: pull.body,
    body_hash: contentHash(pull.body),
    state: 'open',
    merged: false,
    merged_at: null,
    merge_commit_sha: null,
    merged_by_id: null,
    author_id: pull.authorId,
    assignee_id: null,
    head_repo_id: pull.headRepoId,
    head_branch: pull.headBranch,
    head_sha: pull.headSha,
    base_branch: pull.baseBranch,
    created_at: pull.createdAt,
    updated_at: pull.createdAt,
    closed_at: null,
  };
}

/** What an edit may change; `closedAt` null reopens. */
export type PullFieldUpdate = {
  title?: string;
  body?: string;
  state?: Pull['state'];
  closedAt?: number | null;
  headSha?: string;
  assigneeId?: string | null;
};

type PullColumn = (typeof PULL_COLUMNS)[number];

/**
 * The columns each order of a pull listing sorts by, the number last so ties are stable. The
 * orders by comment count (`mostcomment`, `leastcomment`) count in a subquery, the store's own.
 */
export const PULL_ORDERS: Readonly<
  Record<Exclude<PullSort, 'mostcomment' | 'leastcomment'>, readonly [PullColumn, 'asc' | 'desc'][]>
> = {
  newest: [
    ['pull_requests.created_at', 'desc'],
    ['pull_requests.number', 'desc'],
  ],
  priority: [
    ['pull_requests.created_at', 'desc'],
    ['pull_requests.number', 'desc'],
  ],
  oldest: [
    ['pull_requests.created_at', 'asc'],
    ['pull_requests.number', 'asc'],
  ],
  recentupdate: [
    ['pull_requests.updated_at', 'desc'],
    ['pull_requests.number', 'desc'],
  ],
  leastupdate: [
    ['pull_requests.updated_at', 'asc'],
    ['pull_requests.number', 'asc'],
  ],
};
