import type { CommitStatus } from '../domain/branches/commit-status.types.ts';
import type { Repository } from '../domain/repos/repo.types.ts';
import { foldId } from '../lib/ids.ts';
import { rfc3339 } from '../lib/time.ts';
import { repoPathOf } from './branch.ts';
import { type ConvertContext, urlFrom } from './context.ts';
import type { ApiRepository } from './schemas/repo.ts';
import type { ApiCombinedStatus, ApiCommitStatus } from './schemas/status.ts';
import { toApiUser } from './user.ts';

/** Gitea's CommitStatus: the state goes under `status`; `updated_at` equals `created_at`. */
export function toApiCommitStatus(
  status: CommitStatus,
  repo: Repository,
  context: ConvertContext,
): ApiCommitStatus {
  const created = rfc3339(status.createdAt);
  return {
    id: foldId(status.id),
    status: status.state,
    target_url: status.targetUrl,
    description: status.description,
    url: urlFrom(context, `/api/v1/repos/${repoPathOf(repo)}/statuses/${status.sha}`),
    context: status.context,
    creator: toApiUser(status.creator, context),
    created_at: created,
    updated_at: created,
  };
}

/**
 * Kiln's combined status: always an all-clear with no statuses behind it (SPEC.md), for the
 * commit `sha` resolved from the ref that was asked for.
 */
export function toApiCombinedStatus(
  sha: string,
  repo: Repository,
  repository: ApiRepository,
  context: ConvertContext,
): ApiCombinedStatus {
  const repoPath = repoPathOf(repo);
  return {
    state: 'success',
    sha,
    total_count: 0,
    statuses: [],
    repository,
    commit_url: urlFrom(context, `/repos/${repoPath}/commit/${sha}`),
    url: urlFrom(context, `/api/v1/repos/${repoPath}/commits/${sha}/status`),
  };
}
