import { rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffCommits, mergeBase } from './diff.ts';
import { runGitOnObjects } from './object-answers.ts';
import { objectsDir, writeAlternates } from './object-store.ts';
import { commitsBetween } from './pull-refs.ts';
import { RepoPaths } from './repo-paths.ts';
import { initBare } from './repository.ts';
import { commitFiles, useTestRepo, withoutGitOnPath } from './test-support.ts';
import { changedPaths } from './workflow-files.ts';

const fixture = useTestRepo({ pool: true });

describe('answers about objects by their ids', () => {
  it('answers a pull page’s questions again without starting git', async () => {
    const base = await commitFiles(fixture.repo.path, { branch: 'main', files: { a: '1\n' } });
    const head = await commitFiles(fixture.repo.path, {
      branch: 'topic',
      files: { a: '2\n' },
      parents: [base],
    });
    const first = {
      commits: await commitsBetween(fixture.pool, fixture.repo, base, head, 250),
      from: await mergeBase(fixture.repo, base, head),
      diff: await diffCommits(fixture.pool, fixture.repo, { from: base, to: head }),
      paths: await changedPaths(fixture.repo, head, base),
    };
    expect(first.paths).toEqual(['a']);
    expect(first.commits.map((commit) => commit.sha)).toEqual([head]);
    expect(first.diff.files).toHaveLength(1);

    const again = await withoutGitOnPath(fixture.tmp.path, async () => ({
      commits: await commitsBetween(fixture.pool, fixture.repo, base, head, 250),
      from: await mergeBase(fixture.repo, base, head),
      diff: await diffCommits(fixture.pool, fixture.repo, { from: base, to: head }),
      paths: await changedPaths(fixture.repo, head, base),
    }));
    expect(again).toEqual(first);
  });

  it('keeps an answer in memory of its own, not as a view holding a shared slab', async () => {
    const sha = await commitFiles(fixture.repo.path, { branch: 'main', files: { own: '1\n' } });
    const args = ['merge-base', sha, sha];
    const first = await runGitOnObjects(fixture.repo, [sha, sha], args);
    const kept = await runGitOnObjects(fixture.repo, [sha, sha], args);
    expect(kept.stdout.toString()).toBe(first.stdout.toString());
    expect(kept.stdout.buffer.byteLength).toBe(kept.stdout.length);
  });

  it('asks git again for names that move', async () => {
    const base = await commitFiles(fixture.repo.path, { branch: 'main', files: { a: '1\n' } });
    const head = await commitFiles(fixture.repo.path, {
      branch: 'topic',
      files: { a: '2\n' },
      parents: [base],
    });
    expect(await mergeBase(fixture.repo, 'refs/heads/main', 'refs/heads/topic')).toBe(base);
    await commitFiles(fixture.repo.path, { branch: 'main', files: { a: '2\n' }, parents: [head] });
    expect(await mergeBase(fixture.repo, 'refs/heads/main', 'refs/heads/topic')).toBe(head);
  });

  it('forgets what a repository could read through a loan once the loan is cut', async () => {
    const lender = fixture.repo;
    const base = await commitFiles(lender.path, { branch: 'main', files: { a: '1\n' } });
    const head = await commitFiles(lender.path, {
      branch: 'topic',
      files: { a: '2\n' },
      parents: [base],
    });
    const paths = new RepoPaths(path.join(fixture.tmp.path, 'borrowers'));
    const borrower = paths.resolve({ owner: 'o', name: 'fork' });
    await initBare(paths, borrower, { defaultBranch: 'main' });
    const borrowerObjects = objectsDir(borrower.path);
    await writeAlternates(borrowerObjects, [objectsDir(lender.path)]);
    expect(await mergeBase(borrower, base, head)).toBe(base);

    await rm(path.join(borrowerObjects, 'info', 'alternates'));
    await expect(mergeBase(borrower, base, head)).rejects.toThrow();
  });
});
