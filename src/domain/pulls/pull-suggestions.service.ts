import type { RefChange } from '../../git/refs.ts';
import type { Push } from '../repos/push-events.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository } from '../repos/repo.types.ts';
import type { User } from '../users/user.types.ts';
import type { BranchPushStore } from './branch-push.store.ts';
import { formatHead } from './compare-spec.ts';
import { headFeedsBase } from './pull.service.ts';
import type { PullStore } from './pull.store.ts';

/** What to suggest for a pushed branch: open a pull of it, or look at the one already open. */
export type PullSuggestion =
  | {
      readonly kind: 'create';
      /** The branch as a pull names it: `branch`, or `owner:branch` from a fork (Gitea's form). */
      readonly label: string;
      readonly base: Repository;
      readonly baseBranch: string;
      /** The head as the compare page and a new pull's `head` field name it. */
      readonly headRef: string;
    }
  | { readonly kind: 'open'; readonly base: Repository; readonly number: number };

/** A branch its viewer pushed lately that no open pull carries. */
export type RecentBranch = {
  readonly branch: string;
  readonly pushedAt: Date;
  readonly suggestion: Extract<PullSuggestion, { kind: 'create' }>;
};

export type PullSuggestionDeps = {
  readonly repos: RepoService;
  readonly pulls: Pick<PullStore, 'listOpenByHead'>;
  readonly pushes: BranchPushStore;
  /** Default: `Date.now`. */
  readonly now?: () => number;
};

const BRANCH_PREFIX = 'refs/heads/';
/** How long a push is "recent": Gitea offers the pull for about this long. */
export const RECENT_PUSH_MS = 60 * 60 * 1000;
const MAX_RECENT = 3;

function branchOf(change: RefChange): string | undefined {
  return change.ref.startsWith(BRANCH_PREFIX) ? change.ref.slice(BRANCH_PREFIX.length) : undefined;
}

/**
 * Pull requests suggested after pushes, as Gitea makes them: the lines `git push` prints for a
 * branch (open a pull, or the pull already open) and the repository page's "Compare & pull
 * request" for branches the viewer pushed within the last hour. A push to a repository's default
 * branch suggests nothing. From a fork, the pull goes to the repository it was forked from when
 * the pusher may read it and it may take the fork's commits; else within the repository itself.
 */
export class PullSuggestionService {
  readonly #deps: PullSuggestionDeps;

  constructor(deps: PullSuggestionDeps) {
    this.#deps = deps;
  }

  /** Remembers who pushed each branch (a push listener); a deleted branch is forgotten. */
  async record({ repo, pusher, changes }: Push): Promise<void> {
    const now = (this.#deps.now ?? Date.now)();
    for (const change of changes) {
      const branch = branchOf(change);
      if (branch === undefined) continue;
      if (change.newSha === null) await this.#deps.pushes.forget(repo.id, branch);
      else await this.#deps.pushes.record(repo.id, { branch, pusherId: pusher.id, pushedAt: now });
    }
  }

  /** One suggestion per branch the push created or moved, in the push's order. */
  async afterPush(repo: Repository, pusher: User, changes: readonly RefChange[]) {
    const suggestions: PullSuggestion[] = [];
    for (const change of changes) {
      const branch = branchOf(change);
      if (branch === undefined || change.newSha === null) continue;
      const suggestion = await this.#suggest(repo, pusher, branch);
      if (suggestion) suggestions.push(suggestion);
    }
    return suggestions;
  }

  /** Branches of `repo` the viewer pushed within the last hour that no open pull carries yet. */
  async recentBranches(viewer: User | undefined, repo: Repository): Promise<RecentBranch[]> {
    if (!viewer) return [];
    const since = (this.#deps.now ?? Date.now)() - RECENT_PUSH_MS;
    const pushes = await this.#deps.pushes.listByPusherSince(repo.id, viewer.id, since, 20);
    const recent: RecentBranch[] = [];
    for (const push of pushes) {
      const suggestion = await this.#suggest(repo, viewer, push.branch);
      if (suggestion?.kind !== 'create') continue;
      recent.push({ branch: push.branch, pushedAt: new Date(push.pushedAt), suggestion });
      if (recent.length === MAX_RECENT) break;
    }
    return recent;
  }

  async #suggest(
    repo: Repository,
    viewer: User,
    branch: string,
  ): Promise<PullSuggestion | undefined> {
    const open = await this.#deps.pulls.listOpenByHead(repo.id, branch);
    const first = open[0];
    if (first) {
      const base = first.repoId === repo.id ? repo : await this.#deps.repos.findById(first.repoId);
      if (base) return { kind: 'open', base, number: first.number };
    }
    if (branch === (await this.#deps.repos.defaultBranch(repo))) return undefined;
    const parent = await this.#deps.repos.visibleParent(viewer, repo);
    const base = parent && headFeedsBase(parent.repo, repo) ? parent.repo : repo;
    const headRef = formatHead(
      { ownerHandle: base.owner.handle, name: base.name },
      { ownerHandle: repo.owner.handle, name: repo.name, branch },
    );
    return {
      kind: 'create',
      label: base.id === repo.id ? branch : `${repo.owner.handle}:${branch}`,
      base,
      baseBranch: await this.#deps.repos.defaultBranch(base),
      headRef,
    };
  }
}
