import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { errorCode } from '../lib/thrown.ts';
import { runGit } from './command.ts';
import { objectsDir, readAlternates } from './object-store.ts';
import type { RepoHandle } from './repo-paths.ts';

/**
 * Background maintenance of one repository's object store, as git recommends for servers:
 * packs rolled up geometrically into a multi-pack index with a reachability bitmap, a split
 * commit-graph with changed-path filters, and, now and then, a full repack that moves
 * unreachable objects into a cruft pack and deletes those older than the grace period.
 *
 * What it never does: delete an object younger than the grace period (a push in flight, or one
 * whose refs are about to move, may still need it; receive-pack's quarantine only covers the
 * time before its hook accepts), prune a store that other repositories borrow from (the caller
 * decides, and `gc.pruneExpire=never`, which forking sets on a lender, is honoured here as
 * well), or copy a lender's objects into a borrower (`-l`: local objects only).
 */

/** Longest one git step may take; a run far beyond this is stuck, not busy. */
export const MAINTENANCE_STEP_TIMEOUT_MS = 30 * 60_000;

const LOOSE_DIR = /^[0-9a-f]{2}$/;

/** What a repository's object directory holds, by file count alone. */
export type ObjectCounts = {
  readonly packs: number;
  readonly looseObjects: number;
};

async function entries(dir: string): Promise<string[]> {
  return readdir(dir).catch((error: unknown): string[] => {
    if (errorCode(error) === 'ENOENT') return [];
    throw error;
  });
}

/**
 * Counts packs and loose objects by listing directories, without starting git. Only fan-out
 * directories that exist are listed; with `sampledDirs`, at most that many of them, and loose
 * objects are extrapolated over the rest (see `estimateObjectFiles`).
 */
export async function countObjectFiles(
  repo: RepoHandle,
  sampledDirs = Number.POSITIVE_INFINITY,
): Promise<ObjectCounts> {
  const objects = objectsDir(repo.path);
  const packs = (await entries(path.join(objects, 'pack'))).filter((name) =>
    name.endsWith('.pack'),
  ).length;
  const fanOut = (await entries(objects)).filter((dir) => LOOSE_DIR.test(dir));
  const sample = fanOut.slice(0, sampledDirs);
  let sampled = 0;
  for (const dir of sample) sampled += (await entries(path.join(objects, dir))).length;
  const looseObjects =
    sample.length === fanOut.length
      ? sampled
      : Math.round((sampled / sample.length) * fanOut.length);
  return { packs, looseObjects };
}

/** Fan-out directories an estimate lists at most; past them it extrapolates. */
export const SAMPLED_FAN_OUT_DIRS = 16;

/**
 * What `countObjectFiles` counts, with loose objects estimated rather than counted once more
 * than `SAMPLED_FAN_OUT_DIRS` fan-out directories exist: their entries' mean over that many,
 * times the directories there are. Run after every push, where listing each of up to 256
 * directories cost the request thread about 2 ms a push (each listing's answer is built there);
 * object names are hashes, spread evenly over the directories, so a sample of them says how
 * full the store is, as `git gc --auto` judges it from one directory. Small stores, the only
 * ones near a low threshold with few directories, are counted exactly.
 */
export function estimateObjectFiles(repo: RepoHandle): Promise<ObjectCounts> {
  return countObjectFiles(repo, SAMPLED_FAN_OUT_DIRS);
}

/**
 * Packs above this many bytes in all, with no commit-graph yet, call for a run whatever the
 * thresholds say: a history pushed or imported in one go arrives as a single pack, which never
 * reaches the pack threshold, and without a commit-graph and its changed-path filters every
 * path history walks the trees of every commit (minutes on 200,000 commits).
 */
export const FIRST_GRAPH_PACK_BYTES = 1024 * 1024;

/**
 * Whether the repository holds a history big enough to want a commit-graph and has none: the
 * packs' sizes and one or two `stat` calls, no git.
 */
export async function wantsFirstCommitGraph(repo: RepoHandle): Promise<boolean> {
  const info = path.join(objectsDir(repo.path), 'info');
  const exists = (file: string) =>
    stat(path.join(info, file)).then(
      () => true,
      () => false,
    );
  if ((await exists('commit-graphs/commit-graph-chain')) || (await exists('commit-graph'))) {
    return false;
  }
  const packDir = path.join(objectsDir(repo.path), 'pack');
  let bytes = 0;
  for (const name of await entries(packDir)) {
    if (!name.endsWith('.pack')) continue;
    bytes += await stat(path.join(packDir, name)).then(
      (found) => found.size,
      () => 0,
    );
    if (bytes > FIRST_GRAPH_PACK_BYTES) return true;
  }
  return false;
}

/** How one maintenance run treats unreachable objects. */
export type MaintenanceOptions = {
  /**
   * Delete unreachable objects untouched for this long, in a full repack. Undefined: an
   * incremental run that deletes no object at all (packs are merged, never thinned).
   */
  readonly pruneAfterMs?: number;
};

/** What a run did: `incremental` merges packs; `full` repacked everything and pruned. */
export type MaintenanceKind = 'incremental' | 'full';

/** Whether the repository was marked never to prune (forking marks every lender so). */
async function neverPrunes(repo: RepoHandle): Promise<boolean> {
  const { stdout } = await runGit(['config', '--get', 'gc.pruneExpire'], {
    gitDir: repo.path,
    okExitCodes: [0, 1],
  });
  return stdout.toString('utf8').trim() === 'never';
}

/**
 * Runs one maintenance pass. Incremental by default; full (pruning) when `pruneAfterMs` is set
 * and the repository is not marked never to prune. A repository that borrows objects gets no
 * bitmap: a bitmap needs every reachable object in its own packs, which `-l` rules out.
 */
export async function maintainRepository(
  repo: RepoHandle,
  options: MaintenanceOptions = {},
): Promise<MaintenanceKind> {
  const run = (args: string[]) =>
    runGit(args, { gitDir: repo.path, timeoutMs: MAINTENANCE_STEP_TIMEOUT_MS });
  const borrows = (await readAlternates(objectsDir(repo.path))).length > 0;
  const bitmap = borrows ? [] : ['--write-bitmap-index'];
  const full = options.pruneAfterMs !== undefined && !(await neverPrunes(repo));
  if (full) {
    // Reflogs keep rewound branches recoverable; entries expire on git's own schedule (90 days,
    // 30 for commits no longer on the branch), as `git gc` would, so their objects can go too.
    await run(['reflog', 'expire', '--all']);
    const expiry = `${Math.ceil((options.pruneAfterMs ?? 0) / 1000)}.seconds.ago`;
    // Packed unreachable objects go to a cruft pack (expired ones left out); loose ones the
    // repack leaves alone are git prune's, with the same expiry, as `git gc` runs them.
    await run([
      'repack',
      '-a',
      '-d',
      '-l',
      '-q',
      '--cruft',
      `--cruft-expiration=${expiry}`,
      '--write-midx',
      ...bitmap,
    ]);
    await run(['prune', `--expire=${expiry}`]);
  } else {
    await run(['repack', '-d', '-l', '-q', '--geometric=2', '--write-midx', ...bitmap]);
  }
  await run([
    'commit-graph',
    'write',
    '--reachable',
    '--split',
    '--changed-paths',
    '--no-progress',
  ]);
  await run(['pack-refs', '--all']);
  return full ? 'full' : 'incremental';
}
