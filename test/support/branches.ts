import type { Repository } from '../../src/domain/repos/repo.types.ts';
import { commitFiles, type TestCommit } from '../../src/git/test-support.ts';
import type { TestServer } from './server.ts';

/** One commit of `branchesFromRoot`: the files it writes and its message. */
export type BranchCommit = Pick<TestCommit, 'files' | 'message'>;

/**
 * The history the pull, compare and code page suites start from, written straight into the
 * repository (git fast-import): one root commit on `main`, then each named branch one commit on
 * top of that root, in the order given. Answers the root's id and each branch's commit id, so a
 * suite can build on either.
 */
export async function branchesFromRoot<B extends string>(
  kiln: TestServer,
  repo: Repository,
  root: BranchCommit,
  branches: Readonly<Record<B, BranchCommit>>,
): Promise<{ root: string; tips: Record<B, string> }> {
  const gitDir = kiln.app.services.repos.handle(repo).path;
  const rootId = await commitFiles(gitDir, { ...root, branch: 'main' });
  const tips = {} as Record<B, string>;
  for (const [branch, commit] of Object.entries<BranchCommit>(branches)) {
    tips[branch as B] = await commitFiles(gitDir, { ...commit, branch, parents: [rootId] });
  }
  return { root: rootId, tips };
}
