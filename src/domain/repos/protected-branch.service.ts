import { isValidRefName } from '../../git/ref-names.ts';
import { Forbidden, Invalid, NotFound, Unauthenticated } from '../errors.ts';
import type { User } from '../users/user.types.ts';
import type { ProtectedBranchStore } from './protected-branch.store.ts';
import { mayAdministerRepo } from './repo.policy.ts';
import type { RepoService } from './repo.service.ts';
import type { ProtectedBranchRecord, Repository } from './repo.types.ts';

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
  async create(viewer: User | undefined, owner: string, name: string, branch: string) {
    const repo = await this.#adminRepo(viewer, owner, name);
    const clean = checkBranch(branch);
    if (!(await this.#store.add(repo.id, clean))) {
      throw new Forbidden('Branch protection already exist');
    }
    return this.#find(repo, clean);
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
