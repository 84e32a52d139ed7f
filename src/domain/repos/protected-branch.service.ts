import { isValidRefName } from '../../git/ref-names.ts';
import { CheckGlobError, compileCheckGlob } from '../ci/check-glob.ts';
import { Forbidden, Invalid, NotFound, Unauthenticated } from '../errors.ts';
import type { User } from '../users/user.types.ts';
import type { ProtectedBranchStore } from './protected-branch.store.ts';
import { mayAdministerRepo } from './repo.policy.ts';
import type { RepoService } from './repo.service.ts';
import type { ProtectedBranchRecord, Repository, RequiredCheckRule } from './repo.types.ts';

/** Most required-check patterns one protection may hold. */
export const MAX_REQUIRED_CHECKS = 100;

/** A change to a protection's required checks; what is left out stays as it is. */
export type RequiredCheckChange = Partial<RequiredCheckRule>;

/**
 * Branches that refuse force pushes and deletion. The list is handed to git's pre-receive hook
 * on every push, so the rule holds whoever pushes.
 */
export class ProtectedBranchService {
  readonly #repos: RepoService;
  readonly #store: ProtectedBranchStore;

  constructor(repos: RepoService, store: ProtectedBranchStore) {
    this.#repos = repos;
    this.#store = store;
  }

  async names(repo: Repository): Promise<string[]> {
    return this.#store.listNames(repo.id);
  }

  /** Every protection of a repository the caller has already found visible, by name. */
  async records(repo: Repository): Promise<ProtectedBranchRecord[]> {
    return this.#store.listRecords(repo.id);
  }

  /** Full ref names for the hook (`refs/heads/main`). */
  async refs(repo: Repository): Promise<string[]> {
    return (await this.names(repo)).map((branch) => `refs/heads/${branch}`);
  }

  async protect(actor: User, owner: string, name: string, branch: string): Promise<void> {
    const { repo } = await this.#repos.require(actor, owner, name, 'admin');
    await this.#store.add(repo.id, checkBranch(branch));
  }

  async unprotect(actor: User, owner: string, name: string, branch: string): Promise<void> {
    const { repo } = await this.#repos.require(actor, owner, name, 'admin');
    await this.#store.remove(repo.id, branch);
  }

  /** Every protection of a repository; for its admins only. */
  async list(viewer: User | undefined, owner: string, name: string) {
    const repo = await this.#adminRepo(viewer, owner, name);
    return this.#store.listRecords(repo.id);
  }

  /** One protection; NotFound when the branch is not protected. */
  async get(viewer: User | undefined, owner: string, name: string, branch: string) {
    const repo = await this.#adminRepo(viewer, owner, name);
    return this.#find(repo, branch);
  }

  /**
   * Protects a branch (which need not exist yet). A second protection of the same branch is
   * refused with Forbidden: Gitea answers 403 here, not 409.
   */
  async create(
    viewer: User | undefined,
    owner: string,
    name: string,
    branch: string,
    checks: RequiredCheckChange = {},
  ) {
    const repo = await this.#adminRepo(viewer, owner, name);
    const clean = checkBranch(branch);
    const rule = {
      enableStatusCheck: checks.enableStatusCheck ?? false,
      statusCheckContexts: checkPatterns(checks.statusCheckContexts ?? []),
    };
    if (!(await this.#store.add(repo.id, clean, rule))) {
      throw new Forbidden('Branch protection already exist');
    }
    return this.#find(repo, clean);
  }

  /**
   * Changes a protection's required checks (Gitea's PATCH); NotFound when the branch is not
   * protected, Invalid for a pattern that does not compile.
   */
  async edit(
    viewer: User | undefined,
    owner: string,
    name: string,
    branch: string,
    change: RequiredCheckChange,
  ): Promise<ProtectedBranchRecord> {
    const repo = await this.#adminRepo(viewer, owner, name);
    const current = await this.#find(repo, branch);
    const rule = {
      enableStatusCheck: change.enableStatusCheck ?? current.enableStatusCheck,
      statusCheckContexts: checkPatterns(change.statusCheckContexts ?? current.statusCheckContexts),
    };
    if (!(await this.#store.setRule(repo.id, current.branch, rule))) throw notProtected(branch);
    return this.#find(repo, current.branch);
  }

  /** The required checks of merging into `branch`; undefined when it is not protected. */
  ruleOf(repo: Repository, branch: string): Promise<RequiredCheckRule | undefined> {
    return this.#store.ruleOf(repo.id, branch);
  }

  /** Lifts a protection; NotFound when the branch was not protected. */
  async delete(viewer: User | undefined, owner: string, name: string, branch: string) {
    const repo = await this.#adminRepo(viewer, owner, name);
    if (!(await this.#store.remove(repo.id, branch))) throw notProtected(branch);
  }

  async #find(repo: Repository, branch: string): Promise<ProtectedBranchRecord> {
    const records = await this.#store.listRecords(repo.id);
    const record = records.find((entry) => entry.branch === branch);
    if (!record) throw notProtected(branch);
    return record;
  }

  /**
   * The repository, when the viewer administers it. As in Gitea, one who may not see it gets
   * NotFound, an anonymous caller Unauthenticated, and any other non-admin Forbidden.
   */
  async #adminRepo(viewer: User | undefined, owner: string, name: string): Promise<Repository> {
    const visible = await this.#repos.get(viewer, owner, name);
    if (!viewer) throw new Unauthenticated('token is required');
    if (!mayAdministerRepo(visible.access)) {
      throw new Forbidden('you need admin access to manage branch protections');
    }
    return visible.repo;
  }
}

function checkBranch(branch: string): string {
  const clean = branch.trim();
  if (clean.startsWith('-') || !isValidRefName(`refs/heads/${clean}`)) {
    throw new Invalid(`"${clean}" is not a valid branch name`);
  }
  return clean;
}

function notProtected(branch: string): NotFound {
  return new NotFound(`branch protection does not exist [name: ${branch}]`);
}

/**
 * Required-check patterns as stored: empty ones dropped, each once, each one that compiles as
 * Gitea's globs do. Throws `Invalid` naming the first that does not, or when there are too many.
 */
function checkPatterns(patterns: readonly string[]): string[] {
  const kept = [...new Set(patterns.filter((pattern) => pattern.trim() !== ''))];
  if (kept.length > MAX_REQUIRED_CHECKS) {
    throw new Invalid(`at most ${MAX_REQUIRED_CHECKS} status check contexts`);
  }
  for (const pattern of kept) {
    try {
      compileCheckGlob(pattern);
    } catch (error) {
      if (!(error instanceof CheckGlobError)) throw error;
      throw new Invalid(
        `status check context "${pattern}" is not a valid pattern: ${error.message}`,
      );
    }
  }
  return kept;
}
