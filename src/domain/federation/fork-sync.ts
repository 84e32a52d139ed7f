import { deleteRef, findBranch, isAncestor, readDefaultBranch, updateRef } from '../../git/refs.ts';
import { fetchRemoteBranch, type RemoteFetchOptions } from '../../git/remote-fetch.ts';
import { Conflict, Forbidden, NotFound } from '../errors.ts';
import type { ProtectedBranchService } from '../repos/protected-branch.service.ts';
import type { PushService } from '../repos/push.service.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository } from '../repos/repo.types.ts';
import type { User } from '../users/user.types.ts';
import { copyFailure } from './fork-reach.ts';
import type { RemoteUpstream } from './remote-forks.service.ts';

/** What `mergeUpstream` did: Gitea's `merge_type` (`""` when the branch was already there). */
export type MergeUpstreamResult = { readonly mergeType: 'fast-forward' | '' };

/** What bringing a fork up to its upstream uses. */
export type ForkSyncDeps = {
  readonly repos: Pick<RepoService, 'handle' | 'require'>;
  /**
   * The use case a git push ends in: bringing a fork up to its upstream moves a branch as a
   * push does, so webhooks, CI and followers hear of it the same way.
   */
  readonly pushHandling: Pick<PushService, 'afterPush'>;
  /** Where failures of the reactions to a sync go (the server's log). */
  readonly report: (error: unknown) => void;
  /** Who may move which branch: bringing a fork up to date moves one as a push would. */
  readonly protectedBranches: Pick<ProtectedBranchService, 'mayPushTo'>;
  /** The remote repository a local one was forked from, if any. */
  readonly upstreamOf: (repo: Repository) => Promise<RemoteUpstream | undefined>;
  /** How git may reach a clone address (checked, pinned, capped). */
  readonly reach: (cloneUri: string) => Promise<RemoteFetchOptions>;
};

/** Where the upstream's branch is put while it is compared; removed again at once. */
const UPSTREAM_REF = 'refs/kiln-upstream/head';

/**
 * "Sync fork": brings `branch` of a fork of a remote repository up to the upstream's branch of
 * that name, when that is a fast-forward; a branch with commits of its own is left alone
 * (Conflict). Without `branch`, the fork's default branch. The move ends in the same use case
 * as a push, so everything that hears of pushes hears of it.
 */
export async function mergeUpstream(
  deps: ForkSyncDeps,
  user: User,
  target: { readonly owner: string; readonly name: string; readonly branch?: string | undefined },
): Promise<MergeUpstreamResult> {
  const { repos } = deps;
  const { repo } = await repos.require(user, target.owner, target.name, 'write');
  const upstream = await deps.upstreamOf(repo);
  if (!upstream) throw new NotFound('this repository is not a fork of a repository elsewhere');
  const handle = repos.handle(repo);
  const branch = target.branch ?? (await readDefaultBranch(handle)) ?? 'main';
  // Invariant: this moves a branch without git's hook, so it asks the hook's rule itself.
  if (!(await deps.protectedBranches.mayPushTo(repo, branch, user))) {
    throw new Forbidden('you may not push to this protected branch');
  }
  const reach = await deps.reach(upstream.cloneUri);
  const theirs = await fetchRemoteBranch(
    handle,
    upstream.cloneUri,
    branch,
    UPSTREAM_REF,
    reach,
  ).catch((error: unknown) => {
    throw copyFailure(`the upstream branch ${branch} could not be fetched`, error);
  });
  try {
    const ours = (await findBranch(handle, branch)) ?? null;
    if (ours === theirs) return { mergeType: '' };
    if (ours !== null && !(await isAncestor(handle, ours, theirs))) {
      throw new Conflict(`${branch} has commits the upstream does not have: merge it by hand`);
    }
    await updateRef(handle, `refs/heads/${branch}`, theirs, ours, 'merge upstream');
    // The same use case a git push ends in: the record first, then the `push` event.
    const changes = [{ ref: `refs/heads/${branch}`, oldSha: ours, newSha: theirs }];
    await deps.pushHandling.afterPush({ repo, pusher: user, changes }, deps.report).recorded;
    return { mergeType: 'fast-forward' };
  } finally {
    await deleteRef(handle, UPSTREAM_REF, theirs).catch(() => {});
  }
}
