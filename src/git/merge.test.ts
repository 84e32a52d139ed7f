import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Conflict, Invalid, NotAllowed, NotFound } from '../domain/errors.ts';
import { CatFilePool } from './cat-file-pool.ts';
import { fetchIntoRepo, mergeBranches } from './merge.ts';
import { readCommit } from './read-objects.ts';
import { RefUpdatePool } from './ref-update-pool.ts';
import { findBranch, findRef, snapshotRefs, updateRef } from './refs.ts';
import { type RepoHandle, RepoPaths } from './repo-paths.ts';
import { createFork, initBare } from './repository.ts';
import { commitFiles, git, makeTempDir, type TempDir } from './test-support.ts';

let tmp: TempDir;
let paths: RepoPaths;
let repo: RepoHandle;
let pool: CatFilePool;
let refUpdates: RefUpdatePool;
let base: string;

const author = {
  name: 'Merger',
  email: 'merger@example.com',
  date: new Date('2024-05-01T12:00:00Z'),
};

beforeEach(async () => {
  tmp = await makeTempDir();
  paths = new RepoPaths(path.join(tmp.path, 'repos'));
  repo = paths.resolve({ owner: 'o', name: 'r' });
  await initBare(paths, repo, { defaultBranch: 'main' });
  base = await commitFiles(repo.path, {
    branch: 'main',
    files: { 'a.txt': 'a\nb\nc\n', 'b.txt': 'b\n' },
  });
  pool = new CatFilePool();
  refUpdates = new RefUpdatePool();
});
afterEach(async () => {
  await Promise.all([pool.closeAll(), refUpdates.closeAll()]);
  await tmp.remove();
});

const processes = () => ({ catFiles: pool, refUpdates });

describe('mergeBranches', () => {
  it('records a merge commit with both parents and moves the base branch', async () => {
    const main = await commitFiles(repo.path, { branch: 'main', files: { 'b.txt': 'b2\n' } });
    const head = await commitFiles(repo.path, {
      branch: 'topic',
      files: { 'c.txt': 'c\n' },
      parents: [base],
    });

    const merge = await mergeBranches(
      repo,
      {
        baseBranch: 'main',
        headSha: head,
        author,
        message: 'Merge topic',
      },
      processes(),
    );

    expect(await findBranch(repo, 'main')).toBe(merge);
    const commit = await readCommit(pool, repo, merge);
    expect(commit.parents).toEqual([main, head]);
    expect(commit.message).toBe('Merge topic\n');
    expect(commit.author).toMatchObject({
      name: 'Merger',
      email: 'merger@example.com',
      timestamp: 1714564800,
    });
    expect(commit.committer).toMatchObject({ name: 'Merger', email: 'merger@example.com' });
    expect(await git(['show', `${merge}:b.txt`], { gitDir: repo.path })).toBe('b2');
    expect(await git(['show', `${merge}:c.txt`], { gitDir: repo.path })).toBe('c');
  });

  it('rejects a conflict, names the files, and changes no ref', async () => {
    await commitFiles(repo.path, { branch: 'main', files: { 'a.txt': 'a\nMAIN\nc\n' } });
    const head = await commitFiles(repo.path, {
      branch: 'topic',
      files: { 'a.txt': 'a\nTOPIC\nc\n' },
      parents: [base],
    });
    const before = await snapshotRefs(repo);

    const error = await mergeBranches(
      repo,
      {
        baseBranch: 'main',
        headSha: head,
        author,
        message: 'm',
      },
      processes(),
    ).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(Conflict);
    expect((error as Conflict).details).toEqual({ files: ['a.txt'] });
    expect(await snapshotRefs(repo)).toEqual(before);
  });

  it('refuses a head that is already in the base', async () => {
    const head = await commitFiles(repo.path, { branch: 'main', files: { 'x.txt': 'x\n' } });
    await expect(
      mergeBranches(repo, { baseBranch: 'main', headSha: base, author, message: 'm' }, processes()),
    ).rejects.toBeInstanceOf(NotAllowed);
    expect(await findBranch(repo, 'main')).toBe(head);
  });

  it('answers NotFound for a missing base branch or head commit', async () => {
    await expect(
      mergeBranches(repo, { baseBranch: 'nope', headSha: base, author, message: 'm' }, processes()),
    ).rejects.toBeInstanceOf(NotFound);
    await expect(
      mergeBranches(
        repo,
        { baseBranch: 'main', headSha: 'a'.repeat(40), author, message: 'm' },
        processes(),
      ),
    ).rejects.toBeInstanceOf(NotFound);
  });

  it('refuses identities git would silently mangle', async () => {
    const head = await commitFiles(repo.path, {
      branch: 'topic',
      files: { 'c.txt': 'c\n' },
      parents: [base],
    });
    const bad = { name: 'Evil <x@y>', email: 'e@x' };
    await expect(
      mergeBranches(
        repo,
        { baseBranch: 'main', headSha: head, author: bad, message: 'm' },
        processes(),
      ),
    ).rejects.toBeInstanceOf(Invalid);
  });
});

describe('mergeBranches racing other writers', () => {
  it('merges again on the new tip when the base moved, and merges cleanly many times concurrently', async () => {
    const heads = await Promise.all(
      [1, 2, 3].map((n) =>
        commitFiles(repo.path, {
          branch: `t${n}`,
          files: { [`f${n}.txt`]: `${n}\n` },
          parents: [base],
        }),
      ),
    );
    const results = await Promise.allSettled(
      heads.map((headSha) =>
        mergeBranches(repo, { baseBranch: 'main', headSha, author, message: 'm' }, processes()),
      ),
    );
    // Each merge either landed or lost the race twice; whatever landed is on main.
    const landed = results.filter((r) => r.status === 'fulfilled');
    expect(landed.length).toBeGreaterThanOrEqual(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(Conflict);
    const tip = await findBranch(repo, 'main');
    for (const [i, r] of results.entries()) {
      if (r.status === 'fulfilled')
        expect(
          await git(['merge-base', '--is-ancestor', heads[i]!, tip!], {
            gitDir: repo.path,
            okExitCodes: [0],
          }),
        ).toBe('');
    }
  });

  it('merges on top of whatever the branch became when it moves during the merge', async () => {
    const head = await commitFiles(repo.path, {
      branch: 'topic',
      files: { 'c.txt': 'c\n' },
      parents: [base],
    });
    const other = await commitFiles(repo.path, {
      branch: 'other',
      files: { 'd.txt': 'd\n' },
      parents: [base],
    });
    // Race an update with the merge: either the merge starts on the new tip, or its
    // compare-and-swap fails and it merges once more on the new tip, or it lands first and the
    // update is the one refused. Whichever: no move of the branch is lost.
    const [merge, raced] = await Promise.all([
      mergeBranches(repo, { baseBranch: 'main', headSha: head, author, message: 'm' }, processes()),
      updateRef(repo, 'refs/heads/main', other, base).then(
        () => 'moved' as const,
        (error: unknown) => {
          if (!(error instanceof Conflict)) throw error;
          return 'refused' as const;
        },
      ),
    ]);
    const commit = await readCommit(pool, repo, merge);
    expect(commit.parents).toEqual([raced === 'moved' ? other : base, head]);
    expect(await findBranch(repo, 'main')).toBe(merge);
  });
});

describe('fetchIntoRepo', () => {
  it('brings a fork commit into the base repository under a pull ref', async () => {
    const fork = paths.resolve({ owner: 'me', name: 'r' });
    await createFork(paths, repo, fork, { shareObjects: true });
    const head = await commitFiles(fork.path, {
      branch: 'main',
      files: { 'fork.txt': 'from fork\n' },
    });

    await fetchIntoRepo(repo, fork, head, 'refs/pull/1/head');
    expect(await findRef(repo, 'refs/pull/1/head')).toBe(head);
    expect(await git(['show', `${head}:fork.txt`], { gitDir: repo.path })).toBe('from fork');

    const again = await commitFiles(fork.path, {
      branch: 'main',
      files: { 'fork.txt': 'rewritten\n' },
      parents: [base],
    });
    await fetchIntoRepo(repo, fork, again, 'refs/pull/1/head');
    expect(await findRef(repo, 'refs/pull/1/head')).toBe(again);
  });

  it('answers NotFound for a commit the source does not have', async () => {
    const fork = paths.resolve({ owner: 'me', name: 'r' });
    await createFork(paths, repo, fork, { shareObjects: true });
    await expect(
      fetchIntoRepo(repo, fork, 'b'.repeat(40), 'refs/pull/1/head'),
    ).rejects.toBeInstanceOf(NotFound);
    await expect(fetchIntoRepo(repo, fork, base, 'pull/1')).rejects.toBeInstanceOf(Invalid);
  });
});
