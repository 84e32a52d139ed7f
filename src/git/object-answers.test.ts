import { describe, expect, it } from 'vitest';
import { diffCommits, mergeBase } from './diff.ts';
import { commitsBetween } from './pull-refs.ts';
import { commitFiles, useTestRepo, withoutGitOnPath } from './test-support.ts';

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
    };
    expect(first.commits.map((commit) => commit.sha)).toEqual([head]);
    expect(first.diff.files).toHaveLength(1);

    const again = await withoutGitOnPath(fixture.tmp.path, async () => ({
      commits: await commitsBetween(fixture.pool, fixture.repo, base, head, 250),
      from: await mergeBase(fixture.repo, base, head),
      diff: await diffCommits(fixture.pool, fixture.repo, { from: base, to: head }),
    }));
    expect(again).toEqual(first);
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
});
