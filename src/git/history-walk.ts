import { stat } from 'node:fs/promises';
import path from 'node:path';
import { NotFound } from '../domain/errors.ts';
import type { CatFilePool } from './cat-file-pool.ts';
import { type Commit, parseCommit } from './objects/commit.ts';
import { readCommit } from './read-objects.ts';
import type { RepoHandle } from './repo-paths.ts';

/**
 * The first pages of a whole history (no path), walked in this process through the repository's
 * long-lived cat-file process instead of a `git rev-list` process of its own: on a big
 * repository starting that process, and git opening the repository in it, cost more than the
 * page. Beyond this many commits (`skip + limit`) `log` asks rev-list, as deep pages are rare.
 */
export const WALK_MAX_COMMITS = 300;

/** How far down a first-parent line one cat-file round asks ahead (`<id>~0` … `<id>~N-1`). */
const CHAIN_BATCH = 32;

/**
 * Rounds a walk may take beyond one per line of CHAIN_BATCH. Each merge costs a round of
 * about the price of a short process start on a loaded machine, so a history full of merges
 * is handed back to rev-list rather than walked here.
 */
const EXTRA_ROUNDS = 4;

/** How far down a merged branch one round asks: such branches are often short. */
const SIDE_BATCH = 4;

/**
 * Whether a walk here would list what rev-list lists. A shallow repository (`shallow` file) or
 * one with grafts (`info/grafts`) makes git see other parents than the objects name, so those
 * go to rev-list. Replace refs are off for every git Kiln runs (GIT_NO_REPLACE_OBJECTS).
 */
export async function canWalkHere(repo: RepoHandle): Promise<boolean> {
  const present = (name: string) =>
    stat(path.join(repo.path, name)).then(
      () => true,
      () => false,
    );
  const [shallow, grafts] = await Promise.all([present('shallow'), present('info/grafts')]);
  return !shallow && !grafts;
}

/**
 * Commits reachable from `revision`, newest first, in exactly the order `git rev-list
 * --skip=<skip> --max-count=<limit> <revision>` gives them (history-walk.test.ts holds the two
 * equal on generated histories): git's default walk pops the commit with the newest committer
 * date, ties going to the one queued first, and queues each parent the first time it is seen.
 *
 * Reads are pipelined: asking cat-file for `<id>~0` … `<id>~31` at once fetches a line of first
 * parents in one round (four along a merged branch), so a linear page costs one round and each
 * merge one more. Undefined when the page would take more rounds than EXTRA_ROUNDS allows: the
 * caller then asks rev-list.
 *
 * @throws NotFound when the revision is not a commit.
 */
export async function walkHistory(
  pool: CatFilePool,
  repo: RepoHandle,
  revision: string,
  page: { skip: number; limit: number },
): Promise<Commit[] | undefined> {
  const wanted = page.skip + page.limit;
  const known = new Map<string, Commit>();
  let rounds = Math.ceil(wanted / CHAIN_BATCH) + EXTRA_ROUNDS;
  const fetchLine = async (sha: string, depth: number) => {
    rounds--;
    const names = Array.from({ length: depth }, (_, k) => `${sha}~${k}`);
    const answers = await Promise.all(names.map((name) => pool.contents(repo, name)));
    for (const answer of answers) {
      if (answer?.type === 'commit') {
        known.set(answer.sha, { sha: answer.sha, ...parseCommit(answer.content) });
      }
    }
  };
  const commitOf = async (sha: string, depth: number): Promise<Commit> => {
    if (!known.has(sha)) await fetchLine(sha, Math.max(1, depth));
    const commit = known.get(sha);
    if (!commit) throw new NotFound('commit not found', { details: { revision: sha } });
    return commit;
  };

  const tip = await readCommit(pool, repo, revision);
  known.set(tip.sha, tip);
  const seen = new Set([tip.sha]);
  const queue: Commit[] = [tip];
  const listed: Commit[] = [];
  while (listed.length < wanted) {
    const next = queue.shift();
    if (!next) break;
    listed.push(next);
    if (listed.length === wanted) break;
    for (const [index, parent] of next.parents.entries()) {
      if (seen.has(parent)) continue;
      seen.add(parent);
      if (rounds <= 0 && !known.has(parent)) return undefined;
      const line = index === 0 ? CHAIN_BATCH : SIDE_BATCH;
      insertByDate(queue, await commitOf(parent, Math.min(line, wanted - listed.length)));
    }
  }
  return listed.slice(page.skip);
}

/** Inserts after every queued commit at least as new, as git's `commit_list_insert_by_date`. */
function insertByDate(queue: Commit[], commit: Commit): void {
  const date = commit.committer.timestamp;
  let at = queue.length;
  for (let i = 0; i < queue.length; i++) {
    if ((queue[i]?.committer.timestamp ?? 0) < date) {
      at = i;
      break;
    }
  }
  queue.splice(at, 0, commit);
}
