import { NotFound } from '../domain/errors.ts';
import { errorCode } from '../lib/thrown.ts';
import type { CatFilePool } from './cat-file-pool.ts';
import { afterEndOfOptions, runGit } from './command.ts';
import { readHeadFile } from './head-file.ts';
import { listRefsFromFiles } from './ref-listing.ts';
import {
  branchRef,
  checkFullRef,
  checkRefPattern,
  checkRevision,
  checkSha,
  tagRef,
  zeroSha,
} from './ref-names.ts';
import { hasRefFiles } from './ref-snapshot.ts';
import { requireRepository } from './repo-exists.ts';
import type { RepoHandle } from './repo-paths.ts';

export interface BranchInfo {
  /** Short name, `feature/x`. */
  readonly name: string;
  /** Full name, `refs/heads/feature/x`. */
  readonly ref: string;
  readonly sha: string;
}

export interface TagInfo {
  readonly name: string;
  readonly ref: string;
  /** What the ref points at: the tag object for an annotated tag, else the commit. */
  readonly sha: string;
  /** The commit the tag finally names, when it names one. */
  readonly commitSha: string | undefined;
  readonly annotated: boolean;
}

export interface RefListing {
  readonly branches: readonly BranchInfo[];
  readonly tags: readonly TagInfo[];
}

/** One ref that a push or another operation moved; null stands for "did not exist". */
export interface RefChange {
  readonly ref: string;
  readonly oldSha: string | null;
  readonly newSha: string | null;
}

/** Every ref's target, by full name. */
export type RefSnapshot = ReadonlyMap<string, string>;

/**
 * Branches and tags, sorted by name. An empty repository has neither. Given the repository's
 * cat-file pool, no git is started (ref-listing.ts) unless there are many tags; otherwise, one
 * `for-each-ref`.
 *
 * @example
 *   const { branches, tags } = await listRefs(repo, pool);
 */
export function listRefs(repo: RepoHandle, pool?: CatFilePool): Promise<RefListing> {
  return repo.caches.refListings.read(repo.path, () => readListing(repo, pool));
}

async function readListing(repo: RepoHandle, pool: CatFilePool | undefined): Promise<RefListing> {
  await requireRepository(repo);
  const fromFiles =
    pool && hasRefFiles(repo.path) ? await listRefsFromFiles(pool, repo) : undefined;
  if (fromFiles) return fromFiles;
  const format = '%(refname) %(objectname) %(objecttype) %(*objectname) %(*objecttype)';
  const { stdout } = await runGit(
    ['for-each-ref', `--format=${format}`, 'refs/heads/', 'refs/tags/'],
    {
      gitDir: repo.path,
    },
  );
  const branches: BranchInfo[] = [];
  const tags: TagInfo[] = [];
  for (const line of lines(stdout)) {
    const [ref = '', sha = '', type = '', peeled = '', peeledType = ''] = line.split(' ');
    if (ref.startsWith('refs/heads/')) {
      branches.push({ name: ref.slice('refs/heads/'.length), ref, sha });
    } else {
      const commitSha = type === 'commit' ? sha : peeledType === 'commit' ? peeled : undefined;
      tags.push({
        name: ref.slice('refs/tags/'.length),
        ref,
        sha,
        commitSha,
        annotated: type === 'tag',
      });
    }
  }
  return { branches, tags };
}

/** The tip of a branch, or undefined when there is no such branch (a tag of that name does not count). */
export async function findBranch(repo: RepoHandle, name: string): Promise<string | undefined> {
  return findRef(repo, branchRef(name));
}

/** The target of a full ref, matched exactly (no abbreviation rules), or undefined. */
export async function findRef(repo: RepoHandle, fullRef: string): Promise<string | undefined> {
  const snapshot = await snapshotRefs(repo, [checkFullRef(fullRef)]);
  return snapshot.get(fullRef);
}

/** Whether the full ref exists. */
export async function refExists(repo: RepoHandle, fullRef: string): Promise<boolean> {
  return (await findRef(repo, fullRef)) !== undefined;
}

/**
 * The commit a user-supplied revision names (a sha, possibly abbreviated, or a branch or tag name),
 * peeling tags. Asks the repository's cat-file process, so no git is spawned.
 *
 * @throws NotFound when nothing matches or the match is not a commit.
 */
export async function resolveCommit(
  pool: CatFilePool,
  repo: RepoHandle,
  revision: string,
): Promise<string> {
  const info = await pool.info(repo, `${checkRevision(revision)}^{commit}`);
  if (!info) throw new NotFound('revision not found', { details: { revision } });
  return info.sha;
}

/**
 * The default branch, read live from the repository's HEAD file without spawning git (see
 * head-file.ts); undefined when HEAD is detached.
 */
export async function readDefaultBranch(repo: RepoHandle): Promise<string | undefined> {
  let head: string;
  try {
    head = readHeadFile(repo.path, repo.caches.headFiles);
  } catch (error) {
    if (errorCode(error) === 'ENOENT')
      throw new NotFound('repository not found', { details: { repository: repo.key } });
    throw error;
  }
  const match = /^ref: refs\/heads\/(.+)\n?$/.exec(head);
  return match?.[1];
}

/** Points HEAD at a branch (which need not exist yet). */
export async function setDefaultBranch(repo: RepoHandle, branch: string): Promise<void> {
  await requireRepository(repo);
  await runGit(['symbolic-ref', '-m', 'set default branch', 'HEAD', branchRef(branch)], {
    gitDir: repo.path,
  });
}

/**
 * Moves a ref from `expectedOldSha` to `newSha` as one compare-and-swap: git takes the ref's lock
 * and compares under it. `expectedOldSha` null means "must not exist yet".
 *
 * @throws Conflict when the ref is not at `expectedOldSha` (someone else moved it first).
 */
export async function updateRef(
  repo: RepoHandle,
  fullRef: string,
  newSha: string,
  expectedOldSha: string | null,
  reason = 'kiln',
): Promise<void> {
  const sha = checkSha(newSha, 'newSha');
  const old =
    expectedOldSha === null ? zeroSha(sha.length) : checkSha(expectedOldSha, 'expectedOldSha');
  await requireRepository(repo);
  await runGit(['update-ref', '-m', reason, checkFullRef(fullRef), sha, old], {
    gitDir: repo.path,
  });
}

/** Deletes a ref if it is still at `expectedOldSha`; Conflict otherwise. */
export async function deleteRef(
  repo: RepoHandle,
  fullRef: string,
  expectedOldSha: string,
): Promise<void> {
  const old = checkSha(expectedOldSha, 'expectedOldSha');
  await requireRepository(repo);
  await runGit(['update-ref', '-m', 'kiln', '-d', checkFullRef(fullRef), old], {
    gitDir: repo.path,
  });
}

/**
 * Creates a lightweight tag at the commit `target` names. Returns the commit's sha.
 *
 * @throws NotFound when `target` names no commit; Conflict when the tag exists.
 */
export async function createTag(
  pool: CatFilePool,
  repo: RepoHandle,
  name: string,
  target: string,
): Promise<string> {
  const ref = tagRef(name);
  const sha = await resolveCommit(pool, repo, target);
  await updateRef(repo, ref, sha, null, 'create tag');
  return sha;
}

/** Whether `ancestor` is reachable from `descendant` (a commit is its own ancestor). */
export async function isAncestor(
  repo: RepoHandle,
  ancestor: string,
  descendant: string,
): Promise<boolean> {
  const args = [
    'merge-base',
    '--is-ancestor',
    ...afterEndOfOptions(checkRevision(ancestor), checkRevision(descendant)),
  ];
  await requireRepository(repo);
  const { exitCode } = await runGit(args, { gitDir: repo.path, okExitCodes: [0, 1] });
  return exitCode === 0;
}

/**
 * Every ref (or those under the given full-name prefixes) with its target, for comparing before
 * and after an operation with `diffRefSnapshots`.
 */
export async function snapshotRefs(
  repo: RepoHandle,
  prefixes: readonly string[] = [],
): Promise<RefSnapshot> {
  await requireRepository(repo);
  const patterns = prefixes.map(checkRefPattern);
  const { stdout } = await runGit(
    ['for-each-ref', '--format=%(refname) %(objectname)', ...patterns],
    {
      gitDir: repo.path,
    },
  );
  const snapshot = new Map<string, string>();
  for (const line of lines(stdout)) {
    const [ref = '', sha = ''] = line.split(' ');
    // A pattern matches by path prefix (`refs/heads/a` matches `refs/heads/a/b`): keep exact
    // matches and refs below a pattern that ends in a slash.
    if (
      patterns.length === 0 ||
      patterns.some((p) => ref === p || (p.endsWith('/') && ref.startsWith(p)))
    ) {
      snapshot.set(ref, sha);
    }
  }
  return snapshot;
}

/** What changed between two snapshots, sorted by ref name. */
export function diffRefSnapshots(before: RefSnapshot, after: RefSnapshot): RefChange[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  const changes: RefChange[] = [];
  for (const ref of [...names].sort()) {
    const oldSha = before.get(ref) ?? null;
    const newSha = after.get(ref) ?? null;
    if (oldSha !== newSha) changes.push({ ref, oldSha, newSha });
  }
  return changes;
}

function lines(output: Buffer): string[] {
  return output
    .toString('utf8')
    .split('\n')
    .filter((line) => line.length > 0);
}
