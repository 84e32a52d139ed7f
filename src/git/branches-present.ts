import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { RepoHandle } from './repo-paths.ts';

async function hasLooseRef(dir: string): Promise<boolean> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.isFile() && !entry.name.endsWith('.lock')) return true;
    if (entry.isDirectory() && (await hasLooseRef(path.join(dir, entry.name)))) return true;
  }
  return false;
}

/**
 * Whether the repository has at least one branch, read from the ref files directly so a list of
 * repositories costs no process per item. A repository without branches is "empty".
 */
export async function hasBranches(repo: RepoHandle): Promise<boolean> {
  if (await hasLooseRef(path.join(repo.path, 'refs', 'heads'))) return true;
  const packed = await readFile(path.join(repo.path, 'packed-refs'), 'utf8').catch(() => '');
  return /^[0-9a-f]{40,64} refs\/heads\//m.test(packed);
}
