import { ownCopy } from '../lib/own-copy.ts';
import { type GitResult, type RunGitOptions, runGit } from './command.ts';
import { alternatesState, objectsDir } from './object-store.ts';
import { isSha } from './ref-names.ts';
import type { RepoHandle } from './repo-paths.ts';

/**
 * Answers of git commands that read nothing but objects named by their full ids (the commits a
 * pull brings, where two commits' histories meet, the diff between two commits), kept in memory
 * and reused: objects never change, so the same ids in the same repository always give the same
 * answer. A pull request's page asked git for all three on every view, three processes started
 * on the main thread (fork and exec are synchronous in Node: 5–35 ms each on a busy machine).
 *
 * Objects a repository borrows are another matter: when a loan is cut, ids it could name
 * before may be missing now, so an answer is kept with the state of the repository's alternates
 * file and holds only while that is unchanged (one stat per question).
 *
 * Only successful answers are kept (an error may be passing: a missing object arrives with the
 * next push), and only for commands whose every revision argument is a full object id, which the
 * caller asserts by passing them as `ids`. Bounded by bytes (output, key and a fixed cost per
 * answer), least recently used first out.
 */

/** The bound of the answers kept (git-caches.ts). */
export const OBJECT_ANSWERS_MAX_BYTES = 32 * 1024 * 1024;
/**
 * What an answer costs beyond its output and key (the map entry, the result, its Buffer). Its
 * output is kept as a copy of its own, so that is all it holds.
 */
const ENTRY_OVERHEAD_BYTES = 256;

/**
 * `runGit(args, options)` in the repository, answered from memory when the same command ran before.
 * `ids` are the revisions among `args`, as git resolved them (a 64-hex branch name in a SHA-1
 * repository looks like an id but moves); when any is not a full object id, git always runs.
 */
export async function runGitOnObjects(
  repo: RepoHandle,
  ids: readonly string[],
  args: readonly string[],
  options: Pick<RunGitOptions, 'maxStdoutBytes' | 'truncateStdout' | 'okExitCodes'> = {},
): Promise<GitResult> {
  const gitDir = repo.path;
  const answers = repo.caches.objectAnswers;
  if (!ids.every(isSha)) return runGit(args, { ...options, gitDir });
  const { maxStdoutBytes, truncateStdout, okExitCodes } = options;
  const loans = alternatesState(objectsDir(gitDir));
  const key = JSON.stringify([gitDir, loans, args, maxStdoutBytes, truncateStdout, okExitCodes]);
  const known = answers.get(key);
  if (known) return known;
  const result = await runGit(args, { ...options, gitDir });
  // One answer may fill at most a quarter: a huge diff does not push out everything else.
  const size = result.stdout.length + result.stderr.length + key.length + ENTRY_OVERHEAD_BYTES;
  if (size <= OBJECT_ANSWERS_MAX_BYTES / 4 && !answers.has(key)) {
    answers.set(key, { ...result, stdout: ownCopy(result.stdout) }, size);
  }
  return result;
}
