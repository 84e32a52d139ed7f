import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { GitClient } from '../support/git.ts';

/** The SHA-256 of `bytes`: the oid git-lfs gives them. */
export function oidOf(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A work tree whose `*.bin` files go through Git LFS, with `origin` at `url`. */
export async function lfsWorkTree(git: GitClient, url: string): Promise<string> {
  const dir = await git.init();
  await git.ok(['lfs', 'install', '--local'], { cwd: dir });
  await git.ok(['lfs', 'track', '*.bin'], { cwd: dir });
  await git.ok(['remote', 'add', 'origin', url], { cwd: dir });
  return dir;
}

/** Makes git-lfs part of the client's global configuration (the smudge filter of clones). */
export async function installLfs(git: GitClient): Promise<void> {
  await git.ok(['lfs', 'install', '--skip-repo']);
}

/** Every file under `root` (relative paths), for checking what a store kept. */
export async function filesUnder(root: string): Promise<string[]> {
  try {
    const entries = await readdir(root, { recursive: true, withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** A batch request body for `objects`. */
export function batchBody(
  operation: 'upload' | 'download',
  objects: { oid: string; size: number }[],
) {
  return JSON.stringify({ operation, transfers: ['basic'], objects });
}

export const LFS_HEADERS = {
  accept: 'application/vnd.git-lfs+json',
  'content-type': 'application/vnd.git-lfs+json',
};
