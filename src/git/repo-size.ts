import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { errorCode } from '../lib/thrown.ts';
import type { RepoHandle } from './repo-paths.ts';

/**
 * Bytes the repository's directory takes on disk (its files' sizes, links not followed), or
 * undefined when it is missing. Objects borrowed from a lender through alternates are the
 * lender's, as `git count-objects` counts them. Read without starting git, for the admin list.
 */
export async function repositorySizeBytes(repo: RepoHandle): Promise<number | undefined> {
  const sizeOf = async (dir: string): Promise<number> => {
    let total = 0;
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) total += await sizeOf(full);
      else if (entry.isFile()) total += (await lstat(full)).size;
    }
    return total;
  };
  try {
    return await sizeOf(repo.path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}
