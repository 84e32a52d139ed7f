import type { Readable } from 'node:stream';
import type { CatFilePool } from './cat-file-pool.ts';
import { afterEndOfOptions, outputStream, runGit, spawnGit } from './command.ts';
import { revListCommits } from './log.ts';
import type { Commit } from './read-objects.ts';
import { checkFullRef, checkSha } from './ref-names.ts';
import { requireRepository } from './repo-exists.ts';
import type { RepoHandle } from './repo-paths.ts';

/**
 * Points a bookkeeping ref (a pull request's `refs/pull/N/head`) at `sha` whatever it held
 * before. Only for refs Kiln alone writes; branches move by compare-and-swap (`updateRef`).
 */
export async function setRef(repo: RepoHandle, fullRef: string, sha: string): Promise<void> {
  await requireRepository(repo);
  await runGit(['update-ref', '-m', 'pull request head', checkFullRef(fullRef), checkSha(sha)], {
    gitDir: repo.path,
  });
}

/**
 * The changes of `head` since it left `base` as git's plain diff (`base...head`), streamed:
 * what a pull request's `.diff` serves.
 */
export async function streamDiff(repo: RepoHandle, base: string, head: string): Promise<Readable> {
  await requireRepository(repo);
  const proc = spawnGit(
    [
      'diff',
      '--no-color',
      '--no-ext-diff',
      '--no-textconv',
      '--binary',
      ...afterEndOfOptions(`${checkSha(base)}...${checkSha(head)}`),
    ],
    { gitDir: repo.path },
  );
  proc.stdin.end();
  return outputStream(proc);
}

/** The commits of `head` not in `base` as mailbox patches, streamed: a pull request's `.patch`. */
export async function streamPatch(repo: RepoHandle, base: string, head: string): Promise<Readable> {
  await requireRepository(repo);
  const proc = spawnGit(
    [
      'format-patch',
      '--stdout',
      '--no-color',
      '--binary',
      ...afterEndOfOptions(`${checkSha(base)}..${checkSha(head)}`),
    ],
    { gitDir: repo.path },
  );
  proc.stdin.end();
  return outputStream(proc);
}

/**
 * The commits of `head` that `base` does not have, oldest first, at most `limit`: a pull
 * request's commit list. One `rev-list` (remembered: object-answers.ts); the commits come from
 * the cat-file process.
 */
export async function commitsBetween(
  pool: CatFilePool,
  repo: RepoHandle,
  base: string,
  head: string,
  limit: number,
): Promise<Commit[]> {
  return revListCommits(
    pool,
    repo,
    [
      '--reverse',
      `--max-count=${Math.max(1, Math.min(limit, 10_000))}`,
      ...afterEndOfOptions(checkSha(head), `^${checkSha(base)}`),
    ],
    [head, base],
  );
}
