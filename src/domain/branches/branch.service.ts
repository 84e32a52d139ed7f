import type { CatFilePool } from '../../git/cat-file-pool.ts';
import { type Commit, readCommit } from '../../git/read-objects.ts';
import { isValidRefName } from '../../git/ref-names.ts';
import { findBranch, listRefs } from '../../git/refs.ts';
import { NotFound } from '../errors.ts';
import type { Page } from '../paging.ts';
import { ruleFor } from '../repos/branch-rule.ts';
import type { ProtectedBranchService } from '../repos/protected-branch.service.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { ProtectedBranchRecord } from '../repos/repo.types.ts';
import type { User } from '../users/user.types.ts';
import type { BranchInfo, BranchListing } from './branch.types.ts';
import type { CommitAuthorStore } from './commit-author.store.ts';

export type BranchServiceDeps = {
  readonly repos: RepoService;
  readonly protectedBranches: ProtectedBranchService;
  readonly authors: CommitAuthorStore;
  readonly catFiles: CatFilePool;
};

/** Gitea's wording, which clients match on. */
function branchNotFound(name: string): NotFound {
  return new NotFound(`branch does not exist [name: ${name}]`);
}

/** Whether `name` can name a branch at all; anything else is simply not a branch. */
function isBranchName(name: string): boolean {
  return (
    isValidRefName(`refs/heads/${name}`) &&
    !name.startsWith('-') &&
    name !== 'HEAD' &&
    !name.startsWith('refs/')
  );
}

/**
 * Reading branches: refs come from one `for-each-ref`, tip commits from the repository's
 * long-lived cat-file process, and the accounts behind commit idents from one query per page.
 * Only `refs/heads/…` counts: a tag or a sha of the same name is not a branch.
 */
export class BranchService {
  readonly #deps: BranchServiceDeps;

  constructor(deps: BranchServiceDeps) {
    this.#deps = deps;
  }

  /** A page of branches by name; an empty repository has none. */
  async list(
    viewer: User | undefined,
    owner: string,
    name: string,
    page: Page,
  ): Promise<BranchListing> {
    const visible = await this.#deps.repos.get(viewer, owner, name);
    const handle = this.#deps.repos.handle(visible.repo);
    const [{ branches }, protections] = await Promise.all([
      listRefs(handle),
      this.#deps.protectedBranches.records(visible.repo),
    ]);
    const shown = branches.slice(page.offset, page.offset + page.limit);
    const read = await Promise.all(
      shown.map(async (branch) => ({
        name: branch.name,
        commit: await readCommit(this.#deps.catFiles, handle, branch.sha),
      })),
    );
    const commits = read.map(({ commit }) => commit);
    const items: BranchInfo[] = read.map(({ name, commit }) =>
      branchInfo(name, commit, protections),
    );
    return {
      visible,
      branches: items,
      total: branches.length,
      handles: await this.#handles(commits),
    };
  }

  /** One branch by its short name (which may contain slashes). */
  async get(
    viewer: User | undefined,
    owner: string,
    name: string,
    branch: string,
  ): Promise<BranchListing> {
    const visible = await this.#deps.repos.get(viewer, owner, name);
    if (!isBranchName(branch)) throw branchNotFound(branch);
    const handle = this.#deps.repos.handle(visible.repo);
    const sha = await findBranch(handle, branch);
    if (sha === undefined) throw branchNotFound(branch);
    const [commit, protections] = await Promise.all([
      readCommit(this.#deps.catFiles, handle, sha),
      this.#deps.protectedBranches.records(visible.repo),
    ]);
    return {
      visible,
      branches: [branchInfo(branch, commit, protections)],
      total: 1,
      handles: await this.#handles([commit]),
    };
  }

  #handles(commits: readonly Commit[]): Promise<Map<string, string>> {
    return this.#deps.authors.handlesByEmail(
      commits.flatMap((commit) => [commit.author.email, commit.committer.email]),
    );
  }
}

/** A branch with its protection's rule, when it has one. */
function branchInfo(
  name: string,
  commit: Commit,
  protections: readonly ProtectedBranchRecord[],
): BranchInfo {
  const rule = ruleFor(protections, name);
  if (!rule) return { name, commit, protected: false };
  const { enableStatusCheck, statusCheckContexts } = rule;
  return { name, commit, protected: true, checks: { enableStatusCheck, statusCheckContexts } };
}
