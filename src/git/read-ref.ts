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
  return (await readRefFiles(repo, [fullRef])).get(fullRef);
}

/**
 * The targets of several full refs of one repository, read from its files as `readRefFile`
 * does, with packed-refs read at most once for all of them. Refs that do not exist or are
 * symbolic are absent from the map.
 */
export async function readRefFiles(
  repo: RepoHandle,
  fullRefs: readonly string[],
): Promise<Map<string, string>> {
  const targets = new Map<string, string>();
  const notLoose = new Set<string>();
  await Promise.all(
    [...new Set(fullRefs)].map(async (fullRef) => {
      const ref = checkFullRef(fullRef);
      const loose = await readFile(path.join(repo.path, ...ref.split('/')), 'utf8').catch(
        () => undefined,
      );
      if (loose === undefined) notLoose.add(ref);
      else if (isSha(loose.trim())) targets.set(ref, loose.trim());
    }),
  );
  if (notLoose.size === 0) return targets;
  // A loose ref wins over a packed one (git writes loose refs on top of packed-refs).
  const packed = await readFile(path.join(repo.path, 'packed-refs'), 'utf8').catch(() => '');
  for (const line of packed.split('\n')) {
    const space = line.indexOf(' ');
    if (space <= 0) continue;
    const ref = line.slice(space + 1);
    const sha = line.slice(0, space);
    if (notLoose.has(ref) && isSha(sha)) targets.set(ref, sha);
  }
  return targets;
}
