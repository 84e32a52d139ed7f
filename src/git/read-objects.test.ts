import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Invalid, NotFound } from '../domain/errors.ts';
import { CatFilePool } from './cat-file-pool.ts';
import { log } from './log.ts';
import { readBlob, readCommit, readTag, readTree } from './read-objects.ts';
import { listRefs } from './refs.ts';
import type { RepoHandle } from './repo-paths.ts';
import { commitFiles, git, makeTestRepo, type TempDir } from './test-support.ts';

let tmp: TempDir;
let repo: RepoHandle;
let pool: CatFilePool;
const shas: string[] = [];

beforeAll(async () => {
  ({ tmp, repo } = await makeTestRepo());
  shas.push(
    await commitFiles(repo.path, {
      branch: 'main',
      files: { 'README.md': '# r\n', 'src/a.ts': 'a\n' },
      time: 1_700_000_000,
      message: 'first\n',
    }),
  );
  shas.push(
    await commitFiles(repo.path, {
      branch: 'main',
      files: { 'src/b.ts': 'b\n' },
      time: 1_700_000_100,
      message: 'second\n',
    }),
  );
  shas.push(
    await commitFiles(repo.path, {
      branch: 'main',
      files: { 'src/a.ts': 'a2\n', 'docs/x y.md': 'x\n' },
      time: 1_700_000_200,
      message: 'third\n\nwith body\n',
      author: 'Ada <ada@example.com>',
    }),
  );
  await git(['tag', '-a', '-m', 'first release', 'v1', shas[0]!], { gitDir: repo.path });
  pool = new CatFilePool();
});
afterAll(async () => {
  await pool.closeAll();
  await tmp.remove();
});

describe('readCommit', () => {
  it('matches what git log prints', async () => {
    const commit = await readCommit(pool, repo, 'main');
    const expected = await git(['log', '-1', '--format=%H%n%T%n%P%n%an%n%ae%n%at%n%B', 'main'], {
      gitDir: repo.path,
    });
    const [sha, tree, parents, name, email, time, ...body] = expected.split('\n');
    expect(commit.sha).toBe(sha);
    expect(commit.tree).toBe(tree);
    expect(commit.parents).toEqual([parents]);
    expect(commit.author).toMatchObject({ name, email, timestamp: Number(time) });
    expect(commit.message.trim()).toBe(body.join('\n').trim());
  });

  it('peels tags and refuses what is not a commit', async () => {
    expect((await readCommit(pool, repo, 'v1')).sha).toBe(shas[0]);
    await expect(readCommit(pool, repo, 'nope')).rejects.toBeInstanceOf(NotFound);
    await expect(readCommit(pool, repo, 'main:README.md')).rejects.toBeInstanceOf(Invalid);
  });
});

describe('readTree', () => {
  it('lists the root and subdirectories', async () => {
    const root = await readTree(pool, repo, 'main');
    expect(root.entries.map((e) => [e.name, e.type])).toEqual([
      ['README.md', 'blob'],
      ['docs', 'tree'],
      ['src', 'tree'],
    ]);
    const src = await readTree(pool, repo, shas[1]!, { path: 'src/' });
    expect(src.entries.map((e) => e.name)).toEqual(['a.ts', 'b.ts']);
    expect(src.sha).toBe(await git(['rev-parse', `${shas[1]}:src`], { gitDir: repo.path }));
  });

  it('answers NotFound for files, missing paths and unknown revisions', async () => {
    await expect(readTree(pool, repo, 'main', { path: 'README.md' })).rejects.toBeInstanceOf(
      NotFound,
    );
    await expect(readTree(pool, repo, 'main', { path: 'nothing' })).rejects.toBeInstanceOf(
      NotFound,
    );
    await expect(readTree(pool, repo, 'nope')).rejects.toBeInstanceOf(NotFound);
  });

  it('refuses paths that climb or break lines', async () => {
    await expect(readTree(pool, repo, 'main', { path: '../x' })).rejects.toBeInstanceOf(Invalid);
    await expect(readTree(pool, repo, 'main', { path: 'a//b' })).rejects.toBeInstanceOf(Invalid);
    await expect(readTree(pool, repo, 'main', { path: 'a\nb' })).rejects.toBeInstanceOf(Invalid);
  });
});

describe('readBlob', () => {
  it('reads a file by path, with spaces, and by id', async () => {
    const blob = await readBlob(pool, repo, 'main', { path: 'docs/x y.md' });
    expect(blob.content.toString()).toBe('x\n');
    expect(blob.truncated).toBe(false);
    expect((await readBlob(pool, repo, blob.sha)).content.toString()).toBe('x\n');
    expect((await readBlob(pool, repo, shas[0]!, { path: 'src/a.ts' })).content.toString()).toBe(
      'a\n',
    );
  });

  it('does not read a blob past the cap, and says so', async () => {
    const blob = await readBlob(pool, repo, 'main', { path: 'README.md', maxBytes: 2 });
    expect(blob.content.length).toBe(0);
    expect(blob.sizeBytes).toBe(4);
    expect(blob.truncated).toBe(true);
    const exact = await readBlob(pool, repo, 'main', { path: 'README.md', maxBytes: 4 });
    expect(exact.content.toString()).toBe('# r\n');
    expect(exact.truncated).toBe(false);
  });

  it('answers NotFound for directories and missing files', async () => {
    await expect(readBlob(pool, repo, 'main', { path: 'src' })).rejects.toBeInstanceOf(NotFound);
    await expect(readBlob(pool, repo, 'main', { path: 'nope.txt' })).rejects.toBeInstanceOf(
      NotFound,
    );
  });
});

describe('readTag', () => {
  it('reads an annotated tag found through listRefs', async () => {
    const { tags } = await listRefs(repo);
    const tag = await readTag(pool, repo, tags[0]!.sha);
    expect(tag).toMatchObject({
      object: shas[0],
      type: 'commit',
      tag: 'v1',
      message: 'first release\n',
    });
    await expect(readTag(pool, repo, shas[0]!)).rejects.toBeInstanceOf(NotFound);
  });
});

describe('log', () => {
  it('pages through history newest first', async () => {
    expect((await log(pool, repo, 'main')).map((c) => c.sha)).toEqual([...shas].reverse());
    expect((await log(pool, repo, 'main', { skip: 1, limit: 1 })).map((c) => c.message)).toEqual([
      'second\n',
    ]);
    expect(await log(pool, repo, 'main', { skip: 10 })).toEqual([]);
    expect(await log(pool, repo, 'main', { limit: 10 })).toHaveLength(3);
  });

  it('filters by path, literally', async () => {
    expect((await log(pool, repo, 'main', { path: 'src/a.ts' })).map((c) => c.sha)).toEqual([
      shas[2],
      shas[0],
    ]);
    expect(await log(pool, repo, 'main', { path: 'src' })).toHaveLength(3);
    expect(await log(pool, repo, 'main', { path: 'src/*.ts' })).toEqual([]);
  });

  it('refuses unknown revisions and option-like input', async () => {
    await expect(log(pool, repo, 'nope')).rejects.toBeInstanceOf(NotFound);
    await expect(log(pool, repo, '--all')).rejects.toBeInstanceOf(Invalid);
    await expect(log(pool, repo, 'main', { path: '--output=/tmp/x' })).rejects.toBeInstanceOf(
      Invalid,
    );
    await expect(log(pool, repo, 'main', { skip: -1 })).rejects.toBeInstanceOf(Invalid);
  });
});
