import { statSync } from 'node:fs';
import path from 'node:path';
import { NotFound } from '../domain/errors.ts';
import type { RepoHandle } from './repo-paths.ts';

/**
 * Whether a bare repository is on disk, judged without spawning git: a `HEAD` file and an
 * `objects` directory. Commands that would hang or misbehave on a non-repository (cat-file,
 * upload-pack) check this first.
 */
export function repositoryExists(repo: RepoHandle): Promise<boolean> {
  return repo.caches.existence.read(repo.path, () => readExistence(repo));
}

/**
 * Two `stat` calls, synchronous on purpose as in head-file.ts: their thread-pool round trips
 * cost the request thread more than the calls, and a missing file throws nothing this way.
 */
async function readExistence(repo: RepoHandle): Promise<boolean> {
  const head = statSync(path.join(repo.path, 'HEAD'), { throwIfNoEntry: false });
  const objects = statSync(path.join(repo.path, 'objects'), { throwIfNoEntry: false });
  return head?.isFile() === true && objects?.isDirectory() === true;
}

/** Throws NotFound unless the repository exists. */
export async function requireRepository(repo: RepoHandle): Promise<void> {
  if (!(await repositoryExists(repo))) {
    throw new NotFound('repository not found', { details: { repository: repo.key } });
  }
}
