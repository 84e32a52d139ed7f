import type { CatFilePool } from '../../git/cat-file-pool.ts';
import { type Diff, diffCommits, mergeBase } from '../../git/diff.ts';
import { fetchObjects } from '../../git/merge.ts';
import { commitsBetween } from '../../git/pull-refs.ts';
import type { Commit } from '../../git/read-objects.ts';
import { listRefs } from '../../git/refs.ts';
import type { RepoHandle } from '../../git/repo-paths.ts';
import { NotFound } from '../errors.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository, VisibleRepo } from '../repos/repo.types.ts';
import type { User } from '../users/user.types.ts';
import { formatHead, parseCompareSpec } from './compare-spec.ts';
import { headFeedsBase, namesRepo, type PullService } from './pull.service.ts';
import type { PullStore } from './pull.store.ts';
import type { Pull } from './pull.types.ts';

export type CompareDeps = {
  readonly repos: RepoService;
  readonly pulls: PullService;
  readonly store: Pick<PullStore, 'listOpenByHead'>;
  readonly catFiles: CatFilePool;
};

/** What comparing two branches found, beyond the choices around it. */
export type CompareOutcome =
  /** A branch named does not exist (`side` says which). */
  | { readonly kind: 'missing-branch'; readonly side: 'base' | 'head'; readonly branch: string }
  /** The head is private and the base public: no pull may join them (`headFeedsBase`). */
  | { readonly kind: 'hidden-head' }
  /** The same branch on both sides. */
  | { readonly kind: 'same' }
  | {
      readonly kind: 'compared';
      /** The commits of the head the base lacks, oldest first (at most 250). */
      readonly commits: Commit[];
      /** The head's changes since it left the base, within the usual diff limits. */
      readonly diff: Diff;
      /** The open pull of this head into this base, when there is one. */
      readonly open: Pull | undefined;
    };

/** Two branches side by side, with what the pickers of the compare page offer. */
export type Comparison = {
  readonly base: VisibleRepo;
  readonly baseBranch: string;
  readonly baseBranches: string[];
  /** Repositories a head may come from: the base, its parent and its forks the viewer sees. */
  readonly heads: Repository[];
  readonly head: Repository;
  readonly headBranch: string;
  readonly headBranches: string[];
  /** The head as a new pull's `head` field names it. */
  readonly headRef: string;
  readonly outcome: CompareOutcome;
};

const MAX_COMMITS = 250;

/**
 * Comparing branches before a pull exists: GitHub's and Gitea's `/compare/{base}...{head}`.
 * Only repositories the viewer may read take part; a head repository the viewer cannot read is
 * reported exactly as one that does not exist, so a private fork's name and branches never show.
 */
export class CompareService {
  readonly #deps: CompareDeps;

  constructor(deps: CompareDeps) {
    this.#deps = deps;
  }

  /**
   * Compares as `spec` says (`base...head`, `head`, heads as `owner:branch` or
   * `owner/repo:branch`) in the repository `owner/name`; `paths` narrows the diff to those
   * files.
   *
   * @throws NotFound when the repository or the head repository is missing or hidden.
   */
  async compare(
    viewer: User | undefined,
    owner: string,
    name: string,
    spec: string,
    paths?: readonly string[],
  ): Promise<Comparison> {
    const { repos, pulls } = this.#deps;
    const base = await repos.get(viewer, owner, name);
    const wanted = parseCompareSpec(spec);
    const heads = await pulls.headCandidates(viewer, base.repo);
    const head =
      wanted.head.owner === undefined
        ? base.repo
        : heads.find((repo) => namesRepo(wanted.head, repo));
    if (!head) throw new NotFound('head repository does not exist');
    const baseBranch = wanted.base ?? (await repos.defaultBranch(base.repo));
    const headBranch = wanted.head.branch || (await repos.defaultBranch(head));
    const [baseBranches, headBranches] = await Promise.all([
      this.#branches(base.repo),
      head.id === base.repo.id ? undefined : this.#branches(head),
    ]);
    return {
      base,
      baseBranch,
      baseBranches,
      heads,
      head,
      headBranch,
      headBranches: headBranches ?? baseBranches,
      headRef: formatHead(
        { ownerHandle: base.repo.owner.handle, name: base.repo.name },
        { ownerHandle: head.owner.handle, name: head.name, branch: headBranch },
      ),
      outcome: await this.#outcome(base.repo, baseBranch, head, headBranch, paths),
    };
  }

  async #outcome(
    base: Repository,
    baseBranch: string,
    head: Repository,
    headBranch: string,
    paths: readonly string[] | undefined,
  ): Promise<CompareOutcome> {
    const { pulls, catFiles } = this.#deps;
    const [baseTip, headTip] = await Promise.all([
      pulls.branchTip(base, baseBranch),
      pulls.branchTip(head, headBranch),
    ]);
    if (!baseTip) return { kind: 'missing-branch', side: 'base', branch: baseBranch };
    if (!headTip) return { kind: 'missing-branch', side: 'head', branch: headBranch };
    if (!headFeedsBase(base, head)) return { kind: 'hidden-head' };
    if (base.id === head.id && baseBranch === headBranch) return { kind: 'same' };
    const work = await this.#workRepo(base, head, baseTip, headTip);
    const from = (await mergeBase(work, baseTip, headTip)) ?? baseTip;
    const [commits, diff, open] = await Promise.all([
      commitsBetween(catFiles, work, baseTip, headTip, MAX_COMMITS),
      diffCommits(catFiles, work, {
        from,
        to: headTip,
        ...(paths === undefined ? {} : { paths }),
      }),
      this.#openPull(base, head, baseBranch, headBranch),
    ]);
    return { kind: 'compared', commits, diff, open };
  }

  async #branches(repo: Repository): Promise<string[]> {
    const { branches } = await listRefs(this.#deps.repos.handle(repo), this.#deps.catFiles);
    return branches.map((branch) => branch.name);
  }

  async #openPull(
    base: Repository,
    head: Repository,
    baseBranch: string,
    headBranch: string,
  ): Promise<Pull | undefined> {
    const open = await this.#deps.store.listOpenByHead(head.id, headBranch);
    return open.find((pull) => pull.repoId === base.id && pull.baseBranch === baseBranch);
  }

  /**
   * A repository holding both tips. A fork borrows its parent's objects, so it usually sees the
   * base tip already; else the base may hold the head (a pull from its parent); else the head's
   * commits are fetched into the base, under no ref, as opening the pull would fetch them.
   */
  async #workRepo(
    base: Repository,
    head: Repository,
    baseTip: string,
    headTip: string,
  ): Promise<RepoHandle> {
    const baseHandle = this.#deps.repos.handle(base);
    if (base.id === head.id) return baseHandle;
    const headHandle = this.#deps.repos.handle(head);
    if (await this.#hasCommit(headHandle, baseTip)) return headHandle;
    if (!(await this.#hasCommit(baseHandle, headTip))) {
      await fetchObjects(baseHandle, headHandle, headTip);
    }
    return baseHandle;
  }

  async #hasCommit(repo: RepoHandle, sha: string): Promise<boolean> {
    return (await this.#deps.catFiles.info(repo, sha))?.type === 'commit';
  }
}
