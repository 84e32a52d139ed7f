import { Conflict, NotAllowed, NotFound } from '../domain/errors.ts';
import type { CatFilePool } from './cat-file-pool.ts';
import { afterEndOfOptions, runGit } from './command.ts';
import { checkIdent, writeCommit } from './objects/write-commit.ts';
import { readRefFile } from './read-ref.ts';
import { branchRef, checkFullRef, checkSha, isSha } from './ref-names.ts';
import type { RefUpdatePool } from './ref-update-pool.ts';
import { isAncestor } from './refs.ts';
import { requireRepository } from './repo-exists.ts';
import type { RepoHandle } from './repo-paths.ts';

/** A person as git records them on a commit. */
export interface GitIdentity {
  readonly name: string;
  readonly email: string;
  /** Default: now. */
  readonly date?: Date;
}

/** The repository's long-lived processes a merge uses instead of starting git for each step. */
export interface MergeProcesses {
  readonly catFiles: CatFilePool;
  readonly refUpdates: RefUpdatePool;
}

export interface MergeInput {
  /** The branch to merge into (short name). */
  readonly baseBranch: string;
  /** The commit to merge, e.g. the pull request's head. */
  readonly headSha: string;
  readonly author: GitIdentity;
  /** Default: the author. */
  readonly committer?: GitIdentity;
  readonly message: string;
}

/**
 * Merges `headSha` into `baseBranch` without a work tree: `merge-tree --write-tree` computes the
 * result, a merge commit with both parents is written (the object `commit-tree` would write, made
 * in-process), and the branch moves by compare-and-swap from the tip the merge was computed on,
 * through the repository's long-lived `update-ref --stdin`. If the branch
 * moved meanwhile, the merge is computed once more on the new tip. Returns the merge commit's id.
 * A merge of a large repository is then one git process (merge-tree) instead of three.
 *
 * @throws Conflict when the changes conflict (nothing is changed; `details.files` lists the
 *   conflicted paths) or when the branch keeps moving.
 * @throws NotAllowed when the head is already contained in the base.
 * @throws NotFound when the branch or the head commit does not exist.
 */
export async function mergeBranches(
  repo: RepoHandle,
  input: MergeInput,
  processes: MergeProcesses,
): Promise<string> {
  const baseRef = branchRef(input.baseBranch);
  const headSha = checkSha(input.headSha, 'headSha');
  const now = new Date();
  const author = { ...input.author, date: input.author.date ?? now };
  const committer = input.committer
    ? { ...input.committer, date: input.committer.date ?? now }
    : author;
  checkIdent('author', author);
  checkIdent('committer', committer);
  await requireRepository(repo);

  for (let attempt = 0; ; attempt++) {
    const baseSha = await readRefFile(repo, baseRef);
    if (baseSha === undefined)
      throw new NotFound('base branch not found', { details: { branch: input.baseBranch } });
    const [tree, treeOfBase] = await Promise.all([
      mergeTree(repo, baseSha, headSha),
      baseTree(repo, baseSha, processes.catFiles),
    ]);
    // A head already contained in the base merges to the base's own tree; only then is the
    // (rarely needed) ancestry check worth a process.
    if (tree === treeOfBase && (await isAncestor(repo, headSha, baseSha))) {
      throw new NotAllowed('the head is already merged into the base branch');
    }
    const mergeSha = writeCommit(repo, {
      tree,
      parents: [baseSha, headSha],
      author,
      committer,
      message: input.message,
    });
    try {
      await processes.refUpdates.update(repo, baseRef, mergeSha, baseSha);
      return mergeSha;
    } catch (error) {
      // git may have moved the branch and then failed to say so (killed at its timeout): the
      // branch itself tells whether the merge landed.
      if ((await readRefFile(repo, baseRef)) === mergeSha) return mergeSha;
      if (!(error instanceof Conflict) || attempt > 0) throw error;
    }
  }
}

/**
 * The paths that conflict when `headSha` is merged into `baseSha` (none: it merges cleanly), by
 * the same `merge-tree --write-tree` a merge runs, so the answer is the merge's own. Writes
 * only objects nothing refers to (the merged trees).
 *
 * @throws NotFound when either commit does not exist.
 */
export async function mergeConflicts(
  repo: RepoHandle,
  baseSha: string,
  headSha: string,
): Promise<readonly string[]> {
  await requireRepository(repo);
  try {
    await mergeTree(repo, checkSha(baseSha, 'baseSha'), checkSha(headSha, 'headSha'));
    return [];
  } catch (error) {
    if (!(error instanceof Conflict)) throw error;
    const files = error.details?.files;
    return Array.isArray(files) ? files.filter((file) => typeof file === 'string') : [];
  }
}

/** The tree of a commit, through the repository's cat-file process. */
async function baseTree(repo: RepoHandle, commit: string, pool: CatFilePool): Promise<string> {
  const info = await pool.info(repo, `${commit}^{tree}`);
  if (!info) throw new NotFound('commit not found', { details: { commit } });
  return info.sha;
}

/** The merged tree of two commits, or Conflict naming the conflicted paths. */
async function mergeTree(repo: RepoHandle, baseSha: string, headSha: string): Promise<string> {
  const { stdout, exitCode } = await runGit(
    ['merge-tree', '--write-tree', '-z', '--name-only', '--no-messages', baseSha, headSha],
    { gitDir: repo.path, okExitCodes: [0, 1] },
  );
  const [tree = '', ...rest] = stdout.toString('utf8').split('\0');
  if (exitCode === 0) return tree;
  // merge-tree also exits 1 when a commit does not exist; then there is no tree id to report.
  if (!isSha(tree))
    throw new NotFound('commit not found', { details: { base: baseSha, head: headSha } });
  const files = rest
    .slice(0, Math.max(0, rest.indexOf('')))
    .filter((file, i, all) => all.indexOf(file) === i);
  throw new Conflict('the branches have conflicting changes', { details: { files } });
}

/**
 * Copies the commits up to `sha` from `source` into `target` and points `localRef` there (forced),
 * e.g. a fork's pull request head into the base repository's `refs/pull/N/head`.
 *
 * @throws NotFound when either repository or the commit does not exist.
 */
export async function fetchIntoRepo(
  target: RepoHandle,
  source: RepoHandle,
  sha: string,
  localRef: string,
): Promise<void> {
  await fetchRefspec(target, source, `+${checkSha(sha)}:${checkFullRef(localRef)}`);
}

/**
 * Copies the commits up to `sha` from `source` into `target` without naming them by any ref:
 * enough to compare them with `target`'s own commits. Unreferenced, they are never served
 * (upload-pack hands out what refs reach) and housekeeping prunes them once they are old.
 *
 * @throws NotFound when either repository or the commit does not exist.
 */
export async function fetchObjects(target: RepoHandle, source: RepoHandle, sha: string) {
  await fetchRefspec(target, source, checkSha(sha));
}

async function fetchRefspec(target: RepoHandle, source: RepoHandle, refspec: string) {
  await Promise.all([requireRepository(target), requireRepository(source)]);
  await runGit(
    [
      'fetch',
      '--quiet',
      '--no-tags',
      '--no-write-fetch-head',
      '--no-auto-gc',
      '--no-recurse-submodules',
      ...afterEndOfOptions(source.path, refspec),
    ],
    { gitDir: target.path, timeoutMs: 0 },
  );
}
