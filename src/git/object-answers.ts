import { type GitResult, type RunGitOptions, runGit } from './command.ts';
import { alternatesState, objectsDir } from './object-store.ts';
import { isSha } from './ref-names.ts';

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
 * caller asserts by passing them as `ids`. Bounded by bytes of output and by count, least
 * recently used first out.
 */

const MAX_BYTES = 32 * 1024 * 1024;
const MAX_ANSWERS = 2000;

const answers = new Map<string, GitResult>();
let heldBytes = 0;

function remember(key: string, result: GitResult): void {
  if (result.stdout.length > MAX_BYTES / 4) return;
  answers.set(key, result);
  heldBytes += result.stdout.length;
  for (const [oldest, old] of answers) {
    if (heldBytes <= MAX_BYTES && answers.size <= MAX_ANSWERS) break;
    answers.delete(oldest);
    heldBytes -= old.stdout.length;
  }
}

/**
 * `runGit(args, options)` in `gitDir`, answered from memory when the same command ran before.
 * `ids` are the revisions among `args`; when any is not a full object id (a branch name moves),
 * git always runs.
 */
export async function runGitOnObjects(
  gitDir: string,
  ids: readonly string[],
  args: readonly string[],
  options: Pick<RunGitOptions, 'maxStdoutBytes' | 'truncateStdout' | 'okExitCodes'> = {},
): Promise<GitResult> {
  if (!ids.every(isSha)) return runGit(args, { ...options, gitDir });
  const { maxStdoutBytes, truncateStdout, okExitCodes } = options;
  const loans = alternatesState(objectsDir(gitDir));
  const key = JSON.stringify([gitDir, loans, args, maxStdoutBytes, truncateStdout, okExitCodes]);
  const known = answers.get(key);
  if (known) {
    // Most recently used last.
    answers.delete(key);
    answers.set(key, known);
    return known;
  }
  const result = await runGit(args, { ...options, gitDir });
  if (!answers.has(key)) remember(key, result);
  return result;
}
