import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CatFilePool } from './cat-file-pool.ts';
import { diffCommits, mergeBase } from './diff.ts';
import { commitsBetween } from './pull-refs.ts';
import type { RepoHandle } from './repo-paths.ts';
import { commitFiles, makeTestRepo, type TempDir, withoutGitOnPath } from './test-support.ts';

let tmp: TempDir;
let repo: RepoHandle;
let pool: CatFilePool;

beforeEach(async () => {
  ({ tmp, repo } = await makeTestRepo());
  pool = new CatFilePool();
});
afterEach(async () => {
  await pool.closeAll();
  await tmp.remove();
});

describe('answers about objects by their ids', () => {
  it('answers a pull page’s questions again without starting git', async () => {
    const base = await commitFiles(repo.path, { branch: 'main', files: { a: '1\n' } });
    const head = await commitFiles(repo.path, {
      branch: 'topic',
      files: { a: '2\n' },
      parents: [base],
    });
    const first = {
      commits: await commitsBetween(pool, repo, base, head, 250),
      from: await mergeBase(repo, base, head),
      diff: await diffCommits(pool, repo, { from: base, to: head }),
    };
    expect(first.commits.map((commit) => commit.sha)).toEqual([head]);
    expect(first.diff.files).toHaveLength(1);

    const again = await withoutGitOnPath(tmp.path, async () => ({
      commits: await commitsBetween(pool, repo, base, head, 250),
      from: await mergeBase(repo, base, head),
      diff: await diffCommits(pool, repo, { from: base, to: head }),
    }));
    expect(again).toEqual(first);
  });

  it('asks git again for names that move', async () => {
    const base = await commitFiles(repo.path, { branch: 'main', files: { a: '1\n' } });
    const head = await commitFiles(repo.path, {
      branch: 'topic',
      files: { a: '2\n' },
      parents: [base],
    });
    expect(await mergeBase(repo, 'refs/heads/main', 'refs/heads/topic')).toBe(base);
    await commitFiles(repo.path, { branch: 'main', files: { a: '2\n' }, parents: [head] });
    expect(await mergeBase(repo, 'refs/heads/main', 'refs/heads/topic')).toBe(head);
  });
});
