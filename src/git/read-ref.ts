import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { checkFullRef, isSha } from './ref-names.ts';
import type { RepoHandle } from './repo-paths.ts';

/**
 * The target of a full ref read straight from the repository's files (the loose ref, else
 * packed-refs), without spawning git: for hot paths such as a merge, which read one branch tip
 * and then move it by compare-and-swap, so a racing reader costs nothing but a retry.
 * Undefined when the ref does not exist or is symbolic.
 */
export async function readRefFile(repo: RepoHandle, fullRef: string): Promise<string | undefined> {
  const ref = checkFullRef(fullRef);
  const loose = await readFile(path.join(repo.path, ...ref.split('/')), 'utf8').catch(
    () => undefined,
  );
  if (loose !== undefined) {
    const sha = loose.trim();
    return isSha(sha) ? sha : undefined;
  }
  const packed = await readFile(path.join(repo.path, 'packed-refs'), 'utf8').catch(() => '');
  for (const line of packed.split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0 && line.slice(space + 1) === ref) {
      const sha = line.slice(0, space);
      return isSha(sha) ? sha : undefined;
    }
  }
  return undefined;
}
