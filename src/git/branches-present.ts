import { type Dirent, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { readDefaultBranch } from './refs.ts';
import type { RepoHandle } from './repo-paths.ts';

function hasLooseRef(dir: string): boolean {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  for (const entry of entries) {
    if (entry.isFile() && !entry.name.endsWith('.lock')) return true;
    if (entry.isDirectory() && hasLooseRef(path.join(dir, entry.name))) return true;
  }
  return false;
}

function packedRefs(repo: RepoHandle): string {
  try {
    return readFileSync(path.join(repo.path, 'packed-refs'), 'utf8');
  } catch {
    return '';
  }
}

/**
 * Whether the repository has at least one branch, read from the ref files directly so a list of
 * repositories costs no process per item. A repository without branches is "empty". The reads
 * are synchronous on purpose: a directory listing or two of a few entries, done for every
 * Repository object, costs less than the thread-pool round trips of asynchronous ones.
 */
export async function hasBranches(repo: RepoHandle): Promise<boolean> {
  if (hasLooseRef(path.join(repo.path, 'refs', 'heads'))) return true;
  return /^[0-9a-f]{40,64} refs\/heads\//m.test(packedRefs(repo));
}

export type HeadState = {
  /** The branch HEAD names; undefined when HEAD is detached. */
  readonly defaultBranch: string | undefined;
  /** No branch at all. */
  readonly empty: boolean;
};

/**
 * The default branch and whether the repository is empty, as a Repository object shows them.
 * Under load one repository is asked for many times a millisecond, and the two `stat` calls of
 * reading it cost more than the rest of the answer from memory; so a state read less than
 * `REUSE_WINDOW_MS` ago is reused unless Kiln changed a repository since (repo-changes.ts).
 *
 * @param now milliseconds, for tests
 */
export async function readHeadState(
  repo: RepoHandle,
  now: number = performance.now(),
): Promise<HeadState> {
  return repo.caches.headStates.read(repo.path, () => readHeadStateFromFiles(repo), now);
}

/**
 * Read from the files every time. The default branch's own ref file exists in nearly every
 * repository that has branches, so one stat usually settles emptiness without listing
 * `refs/heads` or reading `packed-refs` (a directory of that name, left by branches below it,
 * settles nothing).
 */
async function readHeadStateFromFiles(repo: RepoHandle): Promise<HeadState> {
  const defaultBranch = await readDefaultBranch(repo);
  const loose =
    defaultBranch !== undefined &&
    !defaultBranch.split('/').includes('..') &&
    statSync(path.join(repo.path, 'refs', 'heads', defaultBranch), {
      throwIfNoEntry: false,
    })?.isFile() === true;
  return { defaultBranch, empty: !loose && !(await hasBranches(repo)) };
}
