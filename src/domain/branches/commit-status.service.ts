import type { CatFilePool } from '../../git/cat-file-pool.ts';
import { isValidRefName } from '../../git/ref-names.ts';
import { resolveCommit } from '../../git/refs.ts';
import { newId } from '../../lib/ids.ts';
import { isDomainError, NotFound } from '../errors.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { VisibleRepo } from '../repos/repo.types.ts';
import type { User } from '../users/user.types.ts';
import type { CommitStatus, PostStatusInput } from './commit-status.types.ts';

/** A revision from outside: an object id (maybe short) or a branch or tag name, slashes allowed. */
function isRevision(ref: string): boolean {
  return /^[0-9a-f]{4,64}$/.test(ref) || (isValidRefName(ref, true) && !ref.startsWith('-'));
}

/**
 * Commit statuses, a stub: Kiln keeps none, so every commit's combined status is an all-clear
 * and a posted status is only echoed. What is real is the commit: an unknown ref is a 404,
 * which Renovate reads as "the branch is gone".
 */
export class CommitStatusService {
  readonly #repos: RepoService;
  readonly #catFiles: CatFilePool;

  constructor(repos: RepoService, catFiles: CatFilePool) {
    this.#repos = repos;
    this.#catFiles = catFiles;
  }

  /** The commit a branch, tag or sha names, in a repository the viewer can see. */
  async resolve(
    viewer: User | undefined,
    owner: string,
    name: string,
    ref: string,
  ): Promise<{ visible: VisibleRepo; sha: string }> {
    const visible = await this.#repos.get(viewer, owner, name);
    return { visible, sha: await this.#commitOf(visible, ref) };
  }

  /** Echoes a status for a commit of a repository the actor may write to; nothing is stored. */
  async post(
    actor: User,
    owner: string,
    name: string,
    sha: string,
    input: PostStatusInput,
  ): Promise<{ visible: VisibleRepo; status: CommitStatus }> {
    const visible = await this.#repos.require(actor, owner, name, 'write');
    const resolved = await this.#commitOf(visible, sha.trim().toLowerCase());
    return {
      visible,
      status: {
        id: newId(),
        sha: resolved,
        state: input.state,
        targetUrl: input.targetUrl ?? '',
        description: input.description ?? '',
        context: (input.context ?? '').trim(),
        creator: actor,
        createdAt: new Date(),
      },
    };
  }

  async #commitOf(visible: VisibleRepo, ref: string): Promise<string> {
    const missing = () => new NotFound(`commit does not exist [ref: ${ref}]`);
    if (!isRevision(ref)) throw missing();
    try {
      return await resolveCommit(this.#catFiles, this.#repos.handle(visible.repo), ref);
    } catch (error) {
      // A ref that git refuses to parse cannot name anything either.
      if (isDomainError(error) && (error.code === 'not_found' || error.code === 'invalid')) {
        throw missing();
      }
      throw error;
    }
  }
}
