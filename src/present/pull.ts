import type { Pull } from '../domain/pulls/pull.types.ts';
import { pullHeadRef } from '../domain/pulls/pull.types.ts';
import type { RemoteAuthor } from '../domain/users/remote-author.ts';
import type { Account } from '../domain/users/user.types.ts';
import { foldId } from '../lib/ids.ts';
import { rfc3339 } from '../lib/time.ts';
import { type ConvertContext, urlFrom } from './context.ts';
import { type RepoFacts, toApiRepository } from './repo.ts';
import type { ApiPRBranchInfo, ApiPullRequest } from './schemas/pull.ts';
import { toApiRemoteUser, toApiUser } from './user.ts';

/** Everything a PullRequest object shows, already loaded by the caller. */
export type PullFacts = {
  readonly pull: Pull;
  readonly base: RepoFacts;
  /** The head repository as the caller may see it; null when gone or invisible. */
  readonly head: RepoFacts | null;
  /** The head commit: the live branch tip while open, else the last recorded head. */
  readonly headSha: string;
  readonly headBranchExists: boolean;
  /** The current tip of the base branch (not the merge base). */
  readonly baseSha: string;
  readonly author: Account;
  /** The person of another server who proposed it, when it was proposed from elsewhere. */
  readonly remoteAuthor?: RemoteAuthor | undefined;
  readonly assignee: Account | null;
  readonly mergedBy: Account | null;
  readonly reviewComments: number;
};

/** Gitea calls a pull a draft when its title starts with `WIP:` or `[WIP]`, in any case. */
export function isDraftTitle(title: string): boolean {
  return /^\s*(wip:|\[wip\])/i.test(title);
}

function time(date: Date | null): string | null {
  return date === null ? null : rfc3339(date);
}

/** Gitea's PullRequest. `label` is the bare branch name, as Gitea (not GitHub) writes it. */
export function toApiPullRequest(facts: PullFacts, context: ConvertContext): ApiPullRequest {
  const { pull, base, head } = facts;
  const repoPath = `${encodeURIComponent(base.repo.owner.handle)}/${encodeURIComponent(base.repo.name)}`;
  const htmlUrl = urlFrom(context, `/repos/${repoPath}/pulls/${pull.number}`);
  const baseInfo: ApiPRBranchInfo = {
    label: pull.baseBranch,
    ref: pull.baseBranch,
    sha: facts.baseSha,
    repo_id: foldId(base.repo.id),
    repo: toApiRepository(base, context),
  };
  const headInfo: ApiPRBranchInfo = {
    label: pull.headBranch,
    // Once the head branch is gone, Gitea points at the ref it keeps in the base repository.
    ref: facts.headBranchExists ? pull.headBranch : pullHeadRef(pull.number),
    sha: facts.headSha,
    repo_id: head ? foldId(head.repo.id) : -1,
    repo: head ? toApiRepository(head, context) : null,
  };
  const assignee = facts.assignee ? toApiUser(facts.assignee, context) : null;
  return {
    id: foldId(pull.id),
    url: htmlUrl,
    number: pull.number,
    user: facts.remoteAuthor
      ? toApiRemoteUser(facts.remoteAuthor, facts.author, context)
      : toApiUser(facts.author, context),
    title: pull.title,
    body: pull.body,
    labels: [],
    milestone: null,
    assignee,
    assignees: assignee ? [assignee] : null,
    requested_reviewers: null,
    state: pull.state,
    draft: isDraftTitle(pull.title),
    is_locked: false,
    comments: 0,
    review_comments: facts.reviewComments,
    additions: 0,
    deletions: 0,
    changed_files: 0,
    html_url: htmlUrl,
    diff_url: htmlUrl === null ? null : `${htmlUrl}.diff`,
    patch_url: htmlUrl === null ? null : `${htmlUrl}.patch`,
    // A placeholder, not a conflict check (SPEC.md): true exactly while the pull is open.
    mergeable: pull.state === 'open',
    merged: pull.merged,
    merged_at: time(pull.mergedAt),
    merge_commit_sha: pull.mergeCommitSha,
    merged_by: facts.mergedBy ? toApiUser(facts.mergedBy, context) : null,
    allow_maintainer_edit: false,
    base: baseInfo,
    head: headInfo,
    merge_base: '',
    due_date: null,
    created_at: rfc3339(pull.createdAt),
    updated_at: rfc3339(pull.updatedAt),
    closed_at: time(pull.closedAt),
    pin_order: 0,
  };
}
