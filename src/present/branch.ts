import type { BranchInfo } from '../domain/branches/branch.types.ts';
import type { AccessLevel, Repository } from '../domain/repos/repo.types.ts';
import { type HandlesByEmail, toApiPayloadCommit } from './commit.ts';
import type { ConvertContext } from './context.ts';
import type { ApiBranch } from './schemas/branch.ts';

/** `owner/name` with each part URL-encoded, for building paths. */
export function repoPathOf(repo: Repository): string {
  return `${encodeURIComponent(repo.owner.handle)}/${encodeURIComponent(repo.name)}`;
}

/**
 * Gitea's Branch. Kiln's protection refuses force pushes and deletion and may require checks
 * before a merge; whoever may write may push, and merge once the checks pass (`user_can_merge`
 * is about the person, not the pull). The rule's name (the branch's own) is shown to admins, as
 * Gitea does.
 */
export function toApiBranch(
  branch: BranchInfo,
  repo: Repository,
  access: AccessLevel,
  handles: HandlesByEmail,
  context: ConvertContext,
): ApiBranch {
  const canWrite = access === 'write' || access === 'admin';
  return {
    name: branch.name,
    commit: toApiPayloadCommit(branch.commit, repoPathOf(repo), handles, context),
    protected: branch.protected,
    required_approvals: 0,
    enable_status_check: branch.checks?.enableStatusCheck ?? false,
    status_check_contexts: [...(branch.checks?.statusCheckContexts ?? [])],
    user_can_push: canWrite,
    user_can_merge: canWrite,
    effective_branch_protection_name: branch.protected && access === 'admin' ? branch.name : '',
  };
}
