import type { ApiPayloadCommit } from './schemas/branch.ts';
import type { ApiPullRequest, ApiPullReviewComment } from './schemas/pull.ts';
import type { ApiRelease } from './schemas/release.ts';
import type { ApiRepository } from './schemas/repo.ts';
import type { ApiUser } from './schemas/user.ts';

/**
 * Gitea's webhook payloads (modules/structs/hook.go), pure: each takes the nested records
 * already converted by the other converters. Key names and their order follow Gitea's structs;
 * the deprecated `secret` field Gitea still writes empty is left out, as Forgejo does.
 */

/** The all-zero object id Gitea writes for a ref that did not exist before or no longer does. */
export const ZERO_SHA = '0000000000000000000000000000000000000000';

/** Who and where, shared by every payload. */
export type PayloadScope = { readonly repository: ApiRepository; readonly sender: ApiUser };

/** A push: `commits` newest first as Gitea sends them, at most a page, `total_commits` all. */
export function pushPayload(
  push: {
    readonly ref: string;
    readonly before: string;
    readonly after: string;
    readonly compareUrl: string;
    readonly commits: readonly ApiPayloadCommit[];
    readonly totalCommits: number;
    readonly pusher: ApiUser;
  },
  scope: PayloadScope,
) {
  return {
    ref: push.ref,
    before: push.before,
    after: push.after,
    compare_url: push.compareUrl,
    commits: push.commits,
    total_commits: push.totalCommits,
    head_commit: push.commits[0] ?? null,
    repository: scope.repository,
    pusher: push.pusher,
    sender: scope.sender,
  };
}

/** A commit with the file lists a push payload carries (Gitea fills them only here). */
export function withFileLists(
  commit: ApiPayloadCommit,
  files: { added: readonly string[]; removed: readonly string[]; modified: readonly string[] },
): ApiPayloadCommit {
  return {
    ...commit,
    added: [...files.added],
    removed: [...files.removed],
    modified: [...files.modified],
  };
}

/** A branch or tag made (`create`): `ref` is the short name, as in Gitea. */
export function createPayload(
  ref: { readonly name: string; readonly type: 'branch' | 'tag'; readonly sha: string },
  scope: PayloadScope,
) {
  return {
    sha: ref.sha,
    ref: ref.name,
    ref_type: ref.type,
    repository: scope.repository,
    sender: scope.sender,
  };
}

/** A branch or tag removed (`delete`). */
export function deletePayload(
  ref: { readonly name: string; readonly type: 'branch' | 'tag' },
  scope: PayloadScope,
) {
  return {
    ref: ref.name,
    ref_type: ref.type,
    pusher_type: 'user',
    repository: scope.repository,
    sender: scope.sender,
  };
}

/** A fork: `forkee` is the new repository, `repository` its source (Gitea's order). */
export function forkPayload(forkee: ApiRepository, scope: PayloadScope) {
  return { forkee, repository: scope.repository, sender: scope.sender };
}

/**
 * A pull request event. Gitea's actions: `opened`, `edited`, `closed` (merged too, with
 * `pull_request.merged` true), `reopened`, `synchronized`, `reviewed` (review comments).
 */
export function pullRequestPayload(
  action: string,
  pull: ApiPullRequest,
  scope: PayloadScope,
  extra: { readonly commitId?: string; readonly review?: { type: string; content: string } } = {},
) {
  return {
    action,
    number: pull.number,
    pull_request: pull,
    repository: scope.repository,
    sender: scope.sender,
    commit_id: extra.commitId ?? '',
    review: extra.review ?? null,
  };
}

/** A line-review comment, as Gitea reports a comment review: `reviewed` with the comment. */
export function reviewCommentPayload(
  pull: ApiPullRequest,
  comment: ApiPullReviewComment,
  scope: PayloadScope,
) {
  return {
    ...pullRequestPayload('reviewed', pull, scope, {
      commitId: comment.commit_id,
      review: { type: 'pull_request_review_comment', content: comment.body },
    }),
    comment,
  };
}

/** A release `published`, `updated` or `deleted`. */
export function releasePayload(action: string, release: ApiRelease, scope: PayloadScope) {
  return { action, release, repository: scope.repository, sender: scope.sender };
}

/** A repository `created` or `deleted`; `organization` is the owner when it is one, else null. */
export function repositoryPayload(
  action: 'created' | 'deleted',
  organization: ApiUser | null,
  scope: PayloadScope,
) {
  return { action, repository: scope.repository, organization, sender: scope.sender };
}
