import { isValidRefName } from '../../git/ref-names.ts';
import { Invalid } from '../errors.ts';
import type { User } from '../users/user.types.ts';
import type { RepoService } from './repo.service.ts';
import type { RepoStore } from './repo.store.ts';
import type { Repository } from './repo.types.ts';

/**
 * Branches that refuse force pushes and deletion. The list is handed to git's pre-receive hook
 * on every push, so the rule holds whoever pushes.
 */
export class ProtectedBranchService {
  readonly #repos: RepoService;
  readonly #store: RepoStore;

  constructor(repos: RepoService, store: RepoStore) {
    this.#repos = repos;
    this.#store = store;
  }

  async names(repo: Repository): Promise<string[]> {
    return this.#store.listProtectedBranches(repo.id);
  }

  /** Full ref names for the hook (`refs/heads/main`). */
  async refs(repo: Repository): Promise<string[]> {
    return (await this.names(repo)).map((branch) => `refs/heads/${branch}`);
  }

  async protect(actor: User, owner: string, name: string, branch: string): Promise<void> {
    const { repo } = await this.#repos.require(actor, owner, name, 'admin');
    const clean = branch.trim();
    if (!isValidRefName(`refs/heads/${clean}`))
      throw new Invalid(`"${clean}" is not a valid branch name`);
    await this.#store.addProtectedBranch(repo.id, clean);
  }

  async unprotect(actor: User, owner: string, name: string, branch: string): Promise<void> {
    const { repo } = await this.#repos.require(actor, owner, name, 'admin');
    await this.#store.removeProtectedBranch(repo.id, branch);
  }
}
