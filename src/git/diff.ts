import type { CatFilePool } from './cat-file-pool.ts';
import { afterDoubleDash, afterEndOfOptions } from './command.ts';
import { type DiffLimits, type ParsedDiff, parseDiff } from './diff-parse.ts';
import { runGitOnObjects } from './object-answers.ts';
import { readCommit } from './read-objects.ts';
import { checkRevision } from './ref-names.ts';
import { resolveCommit } from './refs.ts';
import { requireRepository } from './repo-exists.ts';
import type { RepoHandle } from './repo-paths.ts';

export type { DiffFile, DiffHunk, DiffStatus } from './diff-parse.ts';

export interface DiffOptions extends Partial<DiffLimits> {
  /** The old side; default the first parent of `to` (nothing, for a root commit). */
  from?: string;
  /** The new side. */
  to: string;
  /** Context lines around each change. Default 3. */
  contextLines?: number;
  /** Cap on git's output; beyond it git is stopped, the diff cut and marked truncated. */
  maxBytes?: number;
  /** Only these paths (both sides of a rename, to keep it one). */
  paths?: readonly string[];
}

export interface Diff extends ParsedDiff {
  /** The old commit, or undefined when `to` is a root commit compared with nothing. */
  readonly fromSha: string | undefined;
  readonly toSha: string;
}

export const DEFAULT_DIFF_LIMITS: DiffLimits = { maxFiles: 300, maxLines: 5000 };

/**
 * Most bytes of `git diff` output read for one diff. Pages show at most a megabyte of it
 * (src/http/web/views/diff.ts), so reading more only costs: git is stopped here and the rest of
 * a larger diff is what the per-file pages and the raw `.diff` are for. A 16 MiB diff read whole
 * and decoded held the request thread for seconds.
 */
export const DIFF_READ_BYTES = 2 * 1024 * 1024;

/** The empty tree's id, which git knows without storing it, per hash length. */
export const EMPTY_TREE: Readonly<Record<number, string>> = {
  40: '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
  64: '6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321',
};

/**
 * The changes between two commits, or between a commit and its first parent: the file list
 * (status, paths, line counts, binary flag, complete even when hunks are cut) and unified hunks
 * within the limits. Revisions are resolved through the cat-file process; the diff itself is a
 * single `git diff`.
 *
 * @example
 *   const diff = await diffCommits(pool, repo, { to: sha, maxLines: 2000 });
 *   if (diff.truncated) showBanner();
 * @throws NotFound when a revision does not exist.
 */
export async function diffCommits(
  pool: CatFilePool,
  repo: RepoHandle,
  options: DiffOptions,
): Promise<Diff> {
  const limits: DiffLimits = {
    maxFiles: options.maxFiles ?? DEFAULT_DIFF_LIMITS.maxFiles,
    maxLines: options.maxLines ?? DEFAULT_DIFF_LIMITS.maxLines,
  };
  const to = await readCommit(pool, repo, options.to);
  const fromSha =
    options.from === undefined ? to.parents[0] : await resolveCommit(pool, repo, options.from);
  const oldSide = fromSha ?? EMPTY_TREE[to.sha.length]!;
  const context = Math.max(0, Math.min(options.contextLines ?? 3, 1000));
  const { stdout, truncated } = await runGitOnObjects(
    repo,
    [oldSide, to.sha],
    [
      'diff',
      '--no-color',
      '--no-ext-diff',
      '--no-textconv',
      '--find-renames',
      '--raw',
      '--numstat',
      '--patch',
      '-z',
      '--no-abbrev',
      `--unified=${context}`,
      ...afterEndOfOptions(oldSide, to.sha),
      // Pathspecs are literal for every git Kiln runs (GIT_LITERAL_PATHSPECS).
      ...(options.paths === undefined ? [] : afterDoubleDash(...options.paths)),
    ],
    { maxStdoutBytes: options.maxBytes ?? DIFF_READ_BYTES, truncateStdout: true },
  );
  return { fromSha, toSha: to.sha, ...parsedOnce(stdout, limits, truncated) };
}

/**
 * Parses of git's answers, by the answer: `runGitOnObjects` hands back the very buffer it keeps
 * for a repeated diff of the same objects, so its parse (a few milliseconds of the request
 * thread for a large diff) is made once and lives as long as the answer is kept.
 */
const parses = new WeakMap<Buffer, Map<string, ReturnType<typeof parseDiff>>>();

function parsedOnce(stdout: Buffer, limits: DiffLimits, truncated: boolean) {
  const key = `${limits.maxFiles} ${limits.maxLines} ${truncated}`;
  const known = parses.get(stdout)?.get(key);
  if (known) return known;
  const parsed = parseDiff(stdout, limits, truncated);
  const kept = parses.get(stdout) ?? new Map<string, ReturnType<typeof parseDiff>>();
  kept.set(key, parsed);
  parses.set(stdout, kept);
  return parsed;
}

/**
 * The best common ancestor of two revisions (where a pull request's branch left its base), or
 * undefined when they share no history.
 */
export async function mergeBase(
  repo: RepoHandle,
  a: string,
  b: string,
): Promise<string | undefined> {
  await requireRepository(repo);
  const { stdout, exitCode } = await runGitOnObjects(
    repo,
    [a, b],
    ['merge-base', ...afterEndOfOptions(checkRevision(a), checkRevision(b))],
    { okExitCodes: [0, 1] },
  );
  return exitCode === 0 ? stdout.toString('utf8').trim() : undefined;
}
