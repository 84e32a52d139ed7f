import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Conflict, Invalid, NotFound } from '../domain/errors.ts';
import { listRefsFromFiles } from './ref-listing.ts';
import {
  createTag,
  deleteRef,
  diffRefSnapshots,
  findBranch,
  isAncestor,
  listRefs,
  readDefaultBranch,
  refExists,
  resolveCommit,
  setDefaultBranch,
  snapshotRefs,
  updateRef,
} from './refs.ts';
import { commitFiles, git, useTestRepo, withoutGitOnPath } from './test-support.ts';

const fixture = useTestRepo({ pool: true });

describe('listRefs', () => {
  it('lists nothing in an empty repository', async () => {
    expect(await listRefs(fixture.repo)).toEqual({ branches: [], tags: [] });
    expect(await snapshotRefs(fixture.repo)).toEqual(new Map());
  });

  it('lists branches and lightweight and annotated tags with their commits', async () => {
    const one = await commitFiles(fixture.repo.path, { branch: 'main', files: { a: '1' } });
    const two = await commitFiles(fixture.repo.path, {
      branch: 'feature/x',
      files: { b: '2' },
      parents: [one],
    });
    await git(['tag', 'light', one], { gitDir: fixture.repo.path });
    await git(['tag', '-a', '-m', 'annotated', 'v1.0', two], { gitDir: fixture.repo.path });
    const tagObject = await git(['rev-parse', 'refs/tags/v1.0'], { gitDir: fixture.repo.path });

    const { branches, tags } = await listRefs(fixture.repo);
    expect(branches).toEqual([
      { name: 'feature/x', ref: 'refs/heads/feature/x', sha: two },
      { name: 'main', ref: 'refs/heads/main', sha: one },
    ]);
    expect(tags).toEqual([
      { name: 'light', ref: 'refs/tags/light', sha: one, commitSha: one, annotated: false },
      { name: 'v1.0', ref: 'refs/tags/v1.0', sha: tagObject, commitSha: two, annotated: true },
    ]);
  });
});

describe('listRefsFromFiles', () => {
  it('leaves a repository with a tag object too large for cat-file to for-each-ref', async () => {
    const one = await commitFiles(fixture.repo.path, { branch: 'main', files: { a: '1' } });
    await git(['tag', '-a', '-m', 'small', 'v1', one], { gitDir: fixture.repo.path });
    expect((await listRefsFromFiles(fixture.pool, fixture.repo))?.tags).toHaveLength(1);
    await git(['tag', '-a', '-m', 'm'.repeat(100_000), 'v2', one], { gitDir: fixture.repo.path });
    expect(await listRefsFromFiles(fixture.pool, fixture.repo)).toBeUndefined();
    const { tags } = await listRefs(fixture.repo, fixture.pool);
    expect(tags.map((tag) => [tag.name, tag.commitSha])).toEqual([
      ['v1', one],
      ['v2', one],
    ]);
  });
});

describe('branches, revisions and HEAD', () => {
  it('finds branches by exact name only', async () => {
    const one = await commitFiles(fixture.repo.path, { branch: 'main', files: { a: '1' } });
    await git(['tag', 'v1', one], { gitDir: fixture.repo.path });
    await commitFiles(fixture.repo.path, { branch: 'a/b', files: { a: '2' } });
    expect(await findBranch(fixture.repo, 'main')).toBe(one);
    expect(await findBranch(fixture.repo, 'v1')).toBeUndefined();
    expect(await findBranch(fixture.repo, one)).toBeUndefined();
    expect(await findBranch(fixture.repo, 'a')).toBeUndefined();
    expect(await refExists(fixture.repo, 'refs/heads/a/b')).toBe(true);
    expect(await refExists(fixture.repo, 'refs/heads/a')).toBe(false);
  });

  it('resolves names, tags and abbreviated ids to commits without spawning per call', async () => {
    const one = await commitFiles(fixture.repo.path, { branch: 'main', files: { a: '1' } });
    await git(['tag', '-a', '-m', 'x', 'v1', one], { gitDir: fixture.repo.path });
    expect(await resolveCommit(fixture.pool, fixture.repo, 'main')).toBe(one);
    // Every later lookup goes to the same long-lived cat-file process.
    const reader = fixture.pool.pidOf(fixture.repo);
    expect(reader).toBeDefined();
    expect(await resolveCommit(fixture.pool, fixture.repo, 'v1')).toBe(one);
    expect(await resolveCommit(fixture.pool, fixture.repo, one.slice(0, 10))).toBe(one);
    await expect(resolveCommit(fixture.pool, fixture.repo, 'nope')).rejects.toBeInstanceOf(
      NotFound,
    );
    await expect(resolveCommit(fixture.pool, fixture.repo, '--all')).rejects.toBeInstanceOf(
      Invalid,
    );
    await expect(resolveCommit(fixture.pool, fixture.repo, 'main~1')).rejects.toBeInstanceOf(
      Invalid,
    );
    expect(fixture.pool.pidOf(fixture.repo)).toBe(reader);
    expect(fixture.pool.size).toBe(1);
  });

  it('reads and sets the default branch from the HEAD file', async () => {
    expect(await readDefaultBranch(fixture.repo)).toBe('main');
    await setDefaultBranch(fixture.repo, 'develop');
    expect(await readDefaultBranch(fixture.repo)).toBe('develop');
    await expect(setDefaultBranch(fixture.repo, '-x')).rejects.toBeInstanceOf(Invalid);
  });

  it('answers isAncestor both ways', async () => {
    const one = await commitFiles(fixture.repo.path, { branch: 'main', files: { a: '1' } });
    const two = await commitFiles(fixture.repo.path, { branch: 'main', files: { a: '2' } });
    expect(await isAncestor(fixture.repo, one, two)).toBe(true);
    expect(await isAncestor(fixture.repo, two, one)).toBe(false);
    expect(await isAncestor(fixture.repo, 'main', 'main')).toBe(true);
    await expect(isAncestor(fixture.repo, 'nope', 'main')).rejects.toBeInstanceOf(NotFound);
  });
});

describe('updateRef', () => {
  it('creates, moves and deletes as compare-and-swap', async () => {
    const one = await commitFiles(fixture.repo.path, { branch: 'main', files: { a: '1' } });
    const two = await commitFiles(fixture.repo.path, { branch: 'main', files: { a: '2' } });

    await updateRef(fixture.repo, 'refs/heads/topic', one, null);
    await expect(updateRef(fixture.repo, 'refs/heads/topic', two, null)).rejects.toBeInstanceOf(
      Conflict,
    );
    await expect(updateRef(fixture.repo, 'refs/heads/topic', two, two)).rejects.toBeInstanceOf(
      Conflict,
    );
    expect(await findBranch(fixture.repo, 'topic')).toBe(one);

    await updateRef(fixture.repo, 'refs/heads/topic', two, one);
    expect(await findBranch(fixture.repo, 'topic')).toBe(two);

    await expect(deleteRef(fixture.repo, 'refs/heads/topic', one)).rejects.toBeInstanceOf(Conflict);
    await deleteRef(fixture.repo, 'refs/heads/topic', two);
    expect(await findBranch(fixture.repo, 'topic')).toBeUndefined();
  });

  it('lets exactly one of many racing updates win', async () => {
    const one = await commitFiles(fixture.repo.path, { branch: 'main', files: { a: '1' } });
    const candidates = await Promise.all(
      [1, 2, 3, 4, 5].map((n) =>
        commitFiles(fixture.repo.path, { branch: `c${n}`, files: { a: `${n}` }, parents: [one] }),
      ),
    );
    const results = await Promise.allSettled(
      candidates.map((sha) => updateRef(fixture.repo, 'refs/heads/main', sha, one)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(Conflict);
  });

  it('refuses bad names and ids before running git', async () => {
    const sha = 'a'.repeat(40);
    await expect(updateRef(fixture.repo, 'main', sha, null)).rejects.toBeInstanceOf(Invalid);
    await expect(updateRef(fixture.repo, 'refs/heads/x', 'HEAD', null)).rejects.toBeInstanceOf(
      Invalid,
    );
    await expect(updateRef(fixture.repo, 'refs/heads/-x/../y', sha, null)).rejects.toBeInstanceOf(
      Invalid,
    );
  });

  it('reports a missing object as NotFound', async () => {
    await expect(
      updateRef(fixture.repo, 'refs/heads/x', 'a'.repeat(40), null),
    ).rejects.toBeInstanceOf(NotFound);
  });
});

describe('createTag', () => {
  it('creates a lightweight tag once', async () => {
    const one = await commitFiles(fixture.repo.path, { branch: 'main', files: { a: '1' } });
    expect(await createTag(fixture.pool, fixture.repo, 'v1', 'main')).toBe(one);
    const { tags } = await listRefs(fixture.repo);
    expect(tags).toEqual([
      { name: 'v1', ref: 'refs/tags/v1', sha: one, commitSha: one, annotated: false },
    ]);
    await expect(createTag(fixture.pool, fixture.repo, 'v1', 'main')).rejects.toBeInstanceOf(
      Conflict,
    );
    await expect(createTag(fixture.pool, fixture.repo, 'v2', 'nope')).rejects.toBeInstanceOf(
      NotFound,
    );
    await expect(createTag(fixture.pool, fixture.repo, '-v3', 'main')).rejects.toBeInstanceOf(
      Invalid,
    );
  });
});

describe('snapshots', () => {
  it('reports created, moved and deleted refs', async () => {
    const one = await commitFiles(fixture.repo.path, { branch: 'main', files: { a: '1' } });
    await commitFiles(fixture.repo.path, { branch: 'gone', files: { a: 'g' } });
    const before = await snapshotRefs(fixture.repo);
    const two = await commitFiles(fixture.repo.path, { branch: 'main', files: { a: '2' } });
    const three = await commitFiles(fixture.repo.path, { branch: 'new', files: { a: '3' } });
    await git(['update-ref', '-d', 'refs/heads/gone'], { gitDir: fixture.repo.path });
    const after = await snapshotRefs(fixture.repo);
    expect(diffRefSnapshots(before, after)).toEqual([
      { ref: 'refs/heads/gone', oldSha: before.get('refs/heads/gone'), newSha: null },
      { ref: 'refs/heads/main', oldSha: one, newSha: two },
      { ref: 'refs/heads/new', oldSha: null, newSha: three },
    ]);
  });

  it('limits a snapshot to exact refs and prefixes', async () => {
    await commitFiles(fixture.repo.path, { branch: 'a', files: { a: '1' } });
    await commitFiles(fixture.repo.path, { branch: 'ab', files: { a: '1' } });
    await commitFiles(fixture.repo.path, { branch: 'x/y', files: { a: '1' } });
    expect([...(await snapshotRefs(fixture.repo, ['refs/heads/a'])).keys()]).toEqual([
      'refs/heads/a',
    ]);
    expect([...(await snapshotRefs(fixture.repo, ['refs/heads/x/'])).keys()]).toEqual([
      'refs/heads/x/y',
    ]);
  });
});

/** Where a loose ref of the test repository lives. */
function looseRef(ref: string): string {
  return path.join(fixture.repo.path, ...ref.split('/'));
}

/** Every shape of branch and tag git keeps, loose and packed. */
async function seedRefs(): Promise<void> {
  const gitDir = fixture.repo.path;
  const one = await commitFiles(gitDir, { branch: 'main', files: { a: '1\n' } });
  await commitFiles(gitDir, { branch: 'feature/x', files: { b: '2\n' }, parents: [one] });
  await commitFiles(gitDir, { branch: 'zürich', files: { c: '3\n' }, parents: [one] });
  await commitFiles(gitDir, { branch: 'z-plain', files: { c: '4\n' }, parents: [one] });
  await git(['tag', 'light', one], { gitDir });
  await git(['tag', '-a', '-m', 'packed', 'v1', one], { gitDir });
  await git(['tag', '-a', '-m', 'of a tag', 'nested', 'v1'], { gitDir });
  const blob = await git(['rev-parse', `${one}:a`], { gitDir });
  await git(['tag', 'blob-tag', blob], { gitDir });
  await git(['pack-refs', '--all'], { gitDir });
  // After packing: loose refs, one of them hiding its packed value.
  await commitFiles(gitDir, { branch: 'feature/x', files: { d: '5\n' } });
  await git(['tag', '-a', '-m', 'loose', 'v2', 'main'], { gitDir });
  await git(['tag', 'light-loose', 'feature/x'], { gitDir });
  await git(['symbolic-ref', 'refs/heads/alias', 'refs/heads/main'], { gitDir });
}

describe('listRefs from the ref files', () => {
  it('lists what git for-each-ref lists, in the same order', async () => {
    await seedRefs();
    const fromFiles = await listRefs(fixture.repo, fixture.pool);
    expect(fromFiles).toEqual(await listRefs(fixture.repo));
    expect(fromFiles.branches.map((branch) => branch.name)).toEqual([
      'alias',
      'feature/x',
      'main',
      'z-plain',
      'zürich',
    ]);
    expect(fromFiles.tags.find((tag) => tag.name === 'nested')?.commitSha).toBeUndefined();
  });

  it('starts no git process besides the repository’s cat-file', async () => {
    await seedRefs();
    const expected = await listRefs(fixture.repo);
    await fixture.pool.info(fixture.repo, 'HEAD');
    const listed = await withoutGitOnPath(fixture.tmp.path, () =>
      listRefs(fixture.repo, fixture.pool),
    );
    expect(listed).toEqual(expected);
  });

  it('lists a repository with many tags as git does', async () => {
    const one = await commitFiles(fixture.repo.path, { branch: 'main', files: { a: '1\n' } });
    for (let i = 0; i < 101; i++) await writeFile(looseRef(`refs/tags/t${i}`), `${one}\n`);
    const listed = await listRefs(fixture.repo, fixture.pool);
    expect(listed.tags).toHaveLength(101);
    expect(listed).toEqual(await listRefs(fixture.repo));
  });
});
