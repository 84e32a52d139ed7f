import { Conflict, Invalid, NotAllowed, NotFound } from '../domain/errors.ts';
import type { CatFilePool } from './cat-file-pool.ts';
import { afterEndOfOptions, runGit } from './command.ts';
import { readRefFile } from './read-ref.ts';
import { branchRef, checkFullRef, checkSha, isSha } from './ref-names.ts';
import { isAncestor, updateRef } from './refs.ts';
import { requireRepository } from './repo-exists.ts';
import type { RepoHandle } from './repo-paths.ts';

/** A person as git records them on a commit. */
export interface GitIdentity {
  readonly name: string;
  readonly email: string;
  /** Default: now. */
  readonly date?: Date;
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

function checkIdentity(identity: GitIdentity, role: string): GitIdentity {
  // git strips `<`, `>` and line breaks from idents silently; refuse them instead.
  for (const value of [identity.name, identity.email]) {
    if (/[<>\0\r\n]/.test(value))
      throw new Invalid(`${role} name or email contains a forbidden character`);
  }
  if (identity.email.length === 0) throw new Invalid(`${role} email is empty`);
  return identity;
}

function identityEnv(
  prefix: 'AUTHOR' | 'COMMITTER',
  identity: GitIdentity,
  now: Date,
): Record<string, string> {
  const seconds = Math.floor((identity.date ?? now).getTime() / 1000);
  return {
    [`GIT_${prefix}_NAME`]: identity.name,
    [`GIT_${prefix}_EMAIL`]: identity.email,
    [`GIT_${prefix}_DATE`]: `@${seconds} +0000`,
  };
}

/**
 * Merges `headSha` into `baseBranch` without a work tree: `merge-tree --write-tree` computes the
 * result, `commit-tree` records a merge commit with both parents, and the branch moves by
 * compare-and-swap from the tip the merge was computed on. If the branch moved meanwhile, the
 * merge is computed once more on the new tip. Returns the merge commit's id.
 *
 * @throws Conflict when the changes conflict (nothing is changed; `details.files` lists the
 *   conflicted paths) or when the branch keeps moving.
 * @throws NotAllowed when the head is already contained in the base.
 * @throws NotFound when the branch or the head commit does not exist.
 */
export async function mergeBranches(
  repo: RepoHandle,
  input: MergeInput,
  pool?: CatFilePool,
): Promise<string> {
  const baseRef = branchRef(input.baseBranch);
  const headSha = checkSha(input.headSha, 'headSha');
  const author = checkIdentity(input.author, 'author');
  const committer = checkIdentity(input.committer ?? input.author, 'committer');
  await requireRepository(repo);

  for (let attempt = 0; ; attempt++) {
    const baseSha = await readRefFile(repo, baseRef);
    if (baseSha === undefined)
      throw new NotFound('base branch not found', { details: { branch: input.baseBranch } });
    const tree = await mergeTree(repo, baseSha, headSha);
    // A head already contained in the base merges to the base's own tree; only then is the
    // (rarely needed) ancestry check worth a process.
    if (
      tree === (await baseTree(repo, baseSha, pool)) &&
      (await isAncestor(repo, headSha, baseSha))
    ) {
      throw new NotAllowed('the head is already merged into the base branch');
    }
    const now = new Date();
    const { stdout } = await runGit(['commit-tree', tree, '-p', baseSha, '-p', headSha], {
      gitDir: repo.path,
      input: input.message.endsWith('\n') ? input.message : `${input.message}\n`,
      env: { ...identityEnv('AUTHOR', author, now), ...identityEnv('COMMITTER', committer, now) },
    });
    const mergeSha = stdout.toString('utf8').trim();
    try {
      await updateRef(repo, baseRef, mergeSha, baseSha, 'merge');
      return mergeSha;
    } catch (error) {
      if (!(error instanceof Conflict) || attempt > 0) throw error;
    }
  }
}

/** The tree of a commit: through the cat-file process when there is one, else `rev-parse`. */
async function baseTree(
  repo: RepoHandle,
  commit: string,
  pool: CatFilePool | undefined,
): Promise<string> {
  if (pool) {
    const info = await pool.info(repo, `${commit}^{tree}`);
    if (info) return info.sha;
  }
  const { stdout } = await runGit(['rev-parse', '--verify', `${checkSha(commit)}^{tree}`], {
    gitDir: repo.path,
  });
  return stdout.toString('utf8').trim();
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
  const refspec = `+${checkSha(sha)}:${checkFullRef(localRef)}`;
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
