import { stat } from 'node:fs/promises';
import path from 'node:path';
import { NotFound } from '../domain/errors.ts';
import { RecentReadings } from './repo-changes.ts';
import type { RepoHandle } from './repo-paths.ts';

/**
 * Whether a bare repository is on disk, judged without spawning git: a `HEAD` file and an
 * `objects` directory. Commands that would hang or misbehave on a non-repository (cat-file,
 * upload-pack) check this first.
 */
export function repositoryExists(repo: RepoHandle): Promise<boolean> {
  return existence.read(repo.path, () => readExistence(repo));
}

/** Existence read lately, shared while it may be reused (repo-changes.ts). */
const existence = new RecentReadings<boolean>();

async function readExistence(repo: RepoHandle): Promise<boolean> {
  const [head, objects] = await Promise.all([
    stat(path.join(repo.path, 'HEAD')).catch(() => undefined),
    stat(path.join(repo.path, 'objects')).catch(() => undefined),
  ]);
  return head?.isFile() === true && objects?.isDirectory() === true;
}

/** Throws NotFound unless the repository exists. */
export async function requireRepository(repo: RepoHandle): Promise<void> {
  if (!(await repositoryExists(repo))) {
    throw new NotFound('repository not found', { details: { repository: repo.key } });
  }
}
