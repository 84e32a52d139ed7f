import { Invalid } from '../domain/errors.ts';
import type { CatFilePool } from './cat-file-pool.ts';
import { afterDoubleDash, afterEndOfOptions, runGit } from './command.ts';
import { canWalkHere, WALK_MAX_COMMITS, walkHistory } from './history-walk.ts';
import { runGitOnObjects } from './object-answers.ts';
import { type Commit, checkTreePath, readCommit } from './read-objects.ts';
import { checkRevision } from './ref-names.ts';
import { requireRepository } from './repo-exists.ts';
import type { RepoHandle } from './repo-paths.ts';

export interface LogOptions {
  /** Commits to skip from the newest. Default 0. */
  skip?: number;
  /** At most this many commits. Default 50. */
  limit?: number;
  /** Only commits that touch this path. */
  path?: string;
}

export const MAX_LOG_LIMIT = 10_000;

function historyArgs(revision: string, options: LogOptions): string[] {
  const rev = checkRevision(revision);
  return [
    ...afterEndOfOptions(rev),
    ...(options.path ? afterDoubleDash(checkTreePath(options.path)) : ['--']),
  ];
}

function count(value: number | undefined, fallback: number, name: string): number {
  const n = value ?? fallback;
  if (!Number.isSafeInteger(n) || n < 0 || n > Number.MAX_SAFE_INTEGER)
    throw new Invalid(`${name} must be a non-negative integer`);
  return n;
}

/**
 * History from a revision, newest first, a page at a time: one `rev-list` for the ids, then the
 * commits through the cat-file process (pipelined, parsed by the same parser as `readCommit`).
 * The first pages of a whole history are walked through the cat-file process alone
 * (history-walk.ts), in the same order, unless merges make that the dearer way.
 *
 * @example
 *   const page = await log(pool, repo, 'main', { skip: 50, limit: 50, path: 'src' });
 * @throws NotFound when the revision does not exist.
 */
export async function log(
  pool: CatFilePool,
  repo: RepoHandle,
  revision: string,
  options: LogOptions = {},
): Promise<Commit[]> {
  const args = logArgs(revision, options);
  if (!args) return [];
  const skip = options.skip ?? 0;
  const limit = Math.min(options.limit ?? 50, MAX_LOG_LIMIT);
  if (!options.path && skip + limit <= WALK_MAX_COMMITS) {
    await requireRepository(repo);
    const walked = (await canWalkHere(repo))
      ? await walkHistory(pool, repo, revision, { skip, limit })
      : undefined;
    if (walked) return walked;
  }
  return revListCommits(pool, repo, args);
}

/**
 * The `git rev-list` arguments of one `log` page, checked; undefined for an empty page.
 *
 * With a path, these must keep git able to use the commit-graph's changed-path (Bloom) filters,
 * which let it skip the tree diff of nearly every commit that does not touch the path: one
 * literal pathspec (GIT_LITERAL_PATHSPECS is pinned) and no option that turns the filters off
 * (`--full-history` with parent rewriting, `--follow`, wildcard or case-folding pathspecs,
 * several paths). log.test.ts traces git to hold this.
 */
export function logArgs(revision: string, options: LogOptions = {}): string[] | undefined {
  const skip = count(options.skip, 0, 'skip');
  const limit = Math.min(count(options.limit, 50, 'limit'), MAX_LOG_LIMIT);
  if (limit === 0) return undefined;
  return [`--max-count=${limit}`, `--skip=${skip}`, ...historyArgs(revision, options)];
}

/**
 * The commits one `git rev-list` lists (arguments checked by the caller), read through the
 * cat-file process, in the order rev-list gives them. `ids`, when given, are all the revisions
 * among `args`, each a full object id: the answer may then come from memory (object-answers.ts).
 */
export async function revListCommits(
  pool: CatFilePool,
  repo: RepoHandle,
  args: readonly string[],
  ids?: readonly string[],
): Promise<Commit[]> {
  await requireRepository(repo);
  const { stdout } = ids
    ? await runGitOnObjects(repo, ids, ['rev-list', ...args])
    : await runGit(['rev-list', ...args], { gitDir: repo.path });
  const shas = stdout
    .toString('utf8')
    .split('\n')
    .filter((line) => line.length > 0);
  return Promise.all(shas.map((sha) => readCommit(pool, repo, sha)));
}

/**
 * How many commits `tip` has that `exclude` (when given) does not: the size of a push. Both must
 * be full object ids.
 */
export async function countNewCommits(
  repo: RepoHandle,
  tip: string,
  exclude: string | null,
): Promise<number> {
  const id = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
  if (!id.test(tip) || (exclude !== null && !id.test(exclude))) {
    throw new Invalid('commit ids must be full hexadecimal object ids');
  }
  await requireRepository(repo);
  const args = ['rev-list', '--count', tip, ...(exclude ? [`^${exclude}`] : []), '--'];
  const { stdout } = await runGit(args, { gitDir: repo.path });
  return Number(stdout.toString('utf8').trim());
}
