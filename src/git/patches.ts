import { afterEndOfOptions, runGit } from './command.ts';
import { checkSha } from './ref-names.ts';
import { requireRepository } from './repo-exists.ts';
import type { RepoHandle } from './repo-paths.ts';

/** A range's commits as mailbox patches, and whether they fit the cap they were read under. */
export type BoundedPatches = {
  /** `git format-patch --stdout` of the range; empty when it did not fit. */
  readonly text: string;
  /** True when the patches are larger than the cap (nothing of them is kept then). */
  readonly over: boolean;
};

/**
 * The commits of `head` that `base` does not have, as `git format-patch` writes them, when they
 * fit in `maxBytes`. Git is stopped at the cap, so a huge range costs at most that much memory.
 */
export async function formatPatches(
  repo: RepoHandle,
  base: string,
  head: string,
  maxBytes: number,
): Promise<BoundedPatches> {
  await requireRepository(repo);
  const { stdout, truncated } = await runGit(
    [
      'format-patch',
      '--stdout',
      '--no-color',
      '--binary',
      '--no-signature',
      ...afterEndOfOptions(`${checkSha(base)}..${checkSha(head)}`),
    ],
    { gitDir: repo.path, maxStdoutBytes: maxBytes + 1, truncateStdout: true },
  );
  if (truncated || stdout.length > maxBytes) return { text: '', over: true };
  return { text: stdout.toString('utf8'), over: false };
}

/** How many commits `head` has that `base` has not, counted up to `limit + 1` at most. */
export async function countCommitsBetween(
  repo: RepoHandle,
  base: string,
  head: string,
  limit: number,
): Promise<number> {
  await requireRepository(repo);
  const { stdout } = await runGit(
    [
      'rev-list',
      '--count',
      `--max-count=${Math.max(1, limit + 1)}`,
      ...afterEndOfOptions(checkSha(head), `^${checkSha(base)}`),
    ],
    { gitDir: repo.path },
  );
  return Number.parseInt(stdout.toString('utf8').trim(), 10) || 0;
}
