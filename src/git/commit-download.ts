import type { Readable } from 'node:stream';
import type { CatFilePool } from './cat-file-pool.ts';
import { afterEndOfOptions, outputStream, spawnGit } from './command.ts';
import { EMPTY_TREE } from './diff.ts';
import { readCommit } from './read-objects.ts';
import { requireRepository } from './repo-exists.ts';
import type { RepoHandle } from './repo-paths.ts';

/**
 * One commit's changes as plain text, streamed from git as it writes them and never held: `diff`
 * is `git diff --binary` against the first parent (the empty tree for a root commit), `patch`
 * the commit as a mailbox patch. What a commit page does not show of a large diff is read here.
 *
 * @throws NotFound when the commit does not exist.
 */
export async function streamCommitChanges(
  pool: CatFilePool,
  repo: RepoHandle,
  id: string,
  kind: 'diff' | 'patch',
): Promise<Readable> {
  await requireRepository(repo);
  const commit = await readCommit(pool, repo, id);
  const parent = commit.parents[0] ?? EMPTY_TREE[commit.sha.length];
  const args =
    kind === 'diff'
      ? [
          'diff',
          '--no-color',
          '--no-ext-diff',
          '--no-textconv',
          '--binary',
          ...afterEndOfOptions(parent ?? '', commit.sha),
        ]
      : [
          'format-patch',
          '--stdout',
          '--no-color',
          '--binary',
          ...(commit.parents.length === 0 ? ['--root'] : []),
          '-1',
          ...afterEndOfOptions(commit.sha),
        ];
  const proc = spawnGit(args, { gitDir: repo.path });
  proc.stdin.end();
  return outputStream(proc);
}
