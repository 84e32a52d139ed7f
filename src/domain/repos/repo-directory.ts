import { directoryChangedAt, isAbandonedCreation } from '../../git/creation-marker.ts';
import type { RepoHandle, RepoPaths } from '../../git/repo-paths.ts';
import { deleteRepository } from '../../git/repository.ts';
import { Conflict } from '../errors.ts';
import type { RepoStore } from './repo.store.ts';
import type { Repository } from './repo.types.ts';

/** A directory without a database row older than this is debris of a crashed creation. */
const ORPHAN_AGE_MS = 60_000;

/**
 * Runs a directory-making step for `repo` at `handle`; when it fails because a directory without
 * any row is in the way (debris of a creation that crashed between the two), that debris is
 * removed and the step retried once. Young directories are left alone (another process may be
 * mid-creation) unless their creation marker names a process of this host that is gone.
 */
export async function makeRepoDirectory(
  deps: { readonly store: Pick<RepoStore, 'findByName'>; readonly paths: RepoPaths },
  repo: Repository,
  handle: RepoHandle,
  make: () => Promise<void>,
): Promise<void> {
  try {
    await make();
  } catch (error) {
    if (!(error instanceof Conflict)) throw error;
    const changedAt = await directoryChangedAt(handle);
    const row = await deps.store.findByName(repo.owner.handle, repo.name);
    const young = changedAt !== undefined && Date.now() - changedAt < ORPHAN_AGE_MS;
    if (row || changedAt === undefined || (young && !(await isAbandonedCreation(handle)))) {
      throw new Conflict('The repository with the same name already exists.');
    }
    await deleteRepository(deps.paths, handle);
    await make();
  }
}
