import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Invalid, NotFound } from '../domain/errors.ts';
import { CatFilePool, type ObjectData } from './cat-file-pool.ts';
import { objectsDir, writeAlternates } from './object-store.ts';
import { type RepoHandle, RepoPaths } from './repo-paths.ts';
import { initBare } from './repository.ts';
import { commitFiles, git, makeTempDir, type TempDir } from './test-support.ts';

let tmp: TempDir;
let paths: RepoPaths;
let repo: RepoHandle;
let pool: CatFilePool;
const blobs = new Map<string, string>();

beforeEach(async () => {
  tmp = await makeTempDir();
  paths = new RepoPaths(path.join(tmp.path, 'repos'));
  repo = paths.resolve({ owner: 'o', name: 'r' });
  await initBare(paths, repo, { defaultBranch: 'main' });
  const files: Record<string, string> = {};
  for (let i = 0; i < 40; i++) files[`f${i}.txt`] = `content ${i}\n`.repeat(i * 50 + 1);
  files['big.bin'] = 'x'.repeat(3 * 1024 * 1024);
  await commitFiles(repo.path, { branch: 'main', files });
  blobs.clear();
  for (const line of (await git(['ls-tree', 'main'], { gitDir: repo.path })).split('\n')) {
    const [meta = '', name = ''] = line.split('\t');
    blobs.set(name, meta.split(' ')[2]!);
  }
});
afterEach(async () => {
  await pool?.closeAll();
  await tmp.remove();
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('CatFilePool', () => {
  it('answers many concurrent requests in order, each with its own object', async () => {
    pool = new CatFilePool();
    const names = [...blobs.keys()];
    const requests = Array.from({ length: 400 }, (_, i) => names[i % names.length]!);
    const results = await Promise.all(
      requests.map((name, i) =>
        i % 3 === 0
          ? pool.info(repo, `main:${name}`)
          : pool.contents(repo, `main:${name}`, i % 2 ? 100 : undefined),
      ),
    );
    results.forEach((result, i) => {
      const name = requests[i]!;
      expect(result?.sha).toBe(blobs.get(name));
      expect(result?.type).toBe('blob');
      if (i % 3 !== 0) {
        const data = result as ObjectData;
        const full =
          name === 'big.bin'
            ? 'x'.repeat(3 * 1024 * 1024)
            : `content ${name.slice(1, -4)}\n`.repeat(Number(name.slice(1, -4)) * 50 + 1);
        const expected = i % 2 ? full.slice(0, 100) : full;
        expect(data.content.toString()).toBe(expected);
        expect(data.truncated).toBe(expected.length < full.length);
        expect(data.sizeBytes).toBe(full.length);
      }
    });
    expect(pool.size).toBe(1);
  });

  it('answers missing objects with undefined and keeps going', async () => {
    pool = new CatFilePool();
    const [missing, found, ambiguous] = await Promise.all([
      pool.contents(repo, 'nope:nothing'),
      pool.info(repo, 'main'),
      pool.info(repo, '0000'),
    ]);
    expect(missing).toBeUndefined();
    expect(found?.type).toBe('commit');
    expect(ambiguous).toBeUndefined();
  });

  it('refuses object names that would break the batch protocol', async () => {
    pool = new CatFilePool();
    await expect(pool.info(repo, 'main\ncontents other')).rejects.toBeInstanceOf(Invalid);
    await expect(pool.info(repo, '')).rejects.toBeInstanceOf(Invalid);
    await expect(pool.info(repo, ' main')).rejects.toBeInstanceOf(Invalid);
  });

  it('checks the directory before starting a process', async () => {
    pool = new CatFilePool();
    await expect(
      pool.info(paths.resolve({ owner: 'no', name: 'repo' }), 'HEAD'),
    ).rejects.toBeInstanceOf(NotFound);
    expect(pool.size).toBe(0);
  });

  it('replaces a killed process and retries what it dropped', async () => {
    pool = new CatFilePool();
    await pool.info(repo, 'main');
    const first = pool.pidOf(repo)!;
    // Kill it while requests are in flight: they are retried on a fresh process.
    const inflight = Promise.all(
      [...blobs.keys()].map((name) => pool.contents(repo, `main:${name}`)),
    );
    process.kill(first, 'SIGKILL');
    const results = await inflight;
    expect(results.map((r) => r?.sha)).toEqual([...blobs.values()]);
    expect((await pool.info(repo, 'main'))?.type).toBe('commit');
    const second = pool.pidOf(repo)!;
    expect(second).not.toBe(first);
  });

  it('closes idle processes', async () => {
    pool = new CatFilePool({ idleMs: 50 });
    await pool.info(repo, 'main');
    const pid = pool.pidOf(repo)!;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(pool.size).toBe(0);
    expect(alive(pid)).toBe(false);
    expect((await pool.info(repo, 'main'))?.type).toBe('commit');
  });

  it('keeps at most maxProcesses, closing the least recently used', async () => {
    pool = new CatFilePool({ maxProcesses: 2 });
    const repos = [repo];
    for (const name of ['b', 'c']) {
      const other = paths.resolve({ owner: 'o', name });
      await initBare(paths, other, { defaultBranch: 'main' });
      await commitFiles(other.path, { branch: 'main', files: { a: name } });
      repos.push(other);
    }
    const [a, b, c] = repos as [RepoHandle, RepoHandle, RepoHandle];
    await pool.info(a, 'main');
    await pool.info(b, 'main');
    await pool.info(a, 'main'); // a is now the most recent; b is the least
    const bPid = pool.pidOf(b)!;
    await pool.info(c, 'main');
    expect(pool.size).toBe(2);
    expect(pool.pidOf(b)).toBeUndefined();
    expect(pool.pidOf(a)).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(alive(bPid)).toBe(false);
  });

  it('sees refs and objects written after it started', async () => {
    pool = new CatFilePool();
    const before = await pool.info(repo, 'main');
    const next = await commitFiles(repo.path, { branch: 'main', files: { 'late.txt': 'late\n' } });
    await git(['repack', '-a', '-d', '-q'], { gitDir: repo.path });
    const after = await pool.info(repo, 'main');
    expect(after?.sha).toBe(next);
    expect(after?.sha).not.toBe(before?.sha);
    expect((await pool.contents(repo, 'main:late.txt'))?.content.toString()).toBe('late\n');
  });

  it('closes everything on closeAll and then refuses work', async () => {
    pool = new CatFilePool();
    await pool.info(repo, 'main');
    const pid = pool.pidOf(repo)!;
    await pool.closeAll();
    expect(pool.size).toBe(0);
    expect(alive(pid)).toBe(false);
    await expect(pool.info(repo, 'main')).rejects.toThrow(/closed/);
  });

  it('fails a request that git does not answer in time, then recovers', async () => {
    pool = new CatFilePool({ requestTimeoutMs: 1 });
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => pool.contents(repo, 'main:big.bin')),
    );
    expect(results.some((r) => r.status === 'rejected')).toBe(true);
    await pool.closeAll();
    pool = new CatFilePool();
    expect((await pool.info(repo, 'main:big.bin'))?.sizeBytes).toBe(3 * 1024 * 1024);
  });

  it('stops serving a lender’s objects once the loan is cut, whoever cut it', async () => {
    pool = new CatFilePool();
    const borrower = paths.resolve({ owner: 'o', name: 'fork' });
    await initBare(paths, borrower, { defaultBranch: 'main' });
    await writeAlternates(objectsDir(borrower.path), [objectsDir(repo.path)]);
    const lent = blobs.get('f1.txt')!;
    expect((await pool.info(borrower, lent))?.sha).toBe(lent);
    const before = pool.pidOf(borrower);
    // As a detach on another replica does it: the file changes, nobody tells this pool.
    await writeAlternates(objectsDir(borrower.path), []);
    expect(await pool.info(borrower, lent)).toBeUndefined();
    // An object the lender gets later is not served either.
    const later = await commitFiles(repo.path, { branch: 'main', files: { 'new.txt': 'new\n' } });
    expect(await pool.info(borrower, later)).toBeUndefined();
    expect(pool.pidOf(borrower)).not.toBe(before);
    // And a process is reused while nothing changes.
    const steady = pool.pidOf(borrower);
    await pool.info(borrower, 'HEAD');
    expect(pool.pidOf(borrower)).toBe(steady);
  });

  it('answers names that cannot change from memory, and asks git for the rest', async () => {
    pool = new CatFilePool({ requestTimeoutMs: 2_000 });
    const head = (await pool.info(repo, 'main^{commit}'))!.sha;
    const names = [`${head}^{tree}`, `${head}:f3.txt`, blobs.get('f2.txt')!];
    const first = await Promise.all(names.map((name) => pool.contents(repo, name)));
    await pool.info(repo, `${head}:f3.txt`);
    const pid = pool.pidOf(repo)!;
    // A stopped git answers nothing: only what was kept can come back now.
    process.kill(pid, 'SIGSTOP');
    try {
      expect(await Promise.all(names.map((name) => pool.contents(repo, name)))).toEqual(first);
      expect((await pool.info(repo, `${head}:f3.txt`))?.sha).toBe(blobs.get('f3.txt'));
      await expect(pool.info(repo, 'main^{commit}')).rejects.toThrow('did not answer');
    } finally {
      process.kill(pid, 'SIGCONT');
    }
  });

  it('never keeps a miss: an object pushed later is found', async () => {
    pool = new CatFilePool();
    const content = 'arrives later\n';
    const file = path.join(tmp.path, 'later.txt');
    await writeFile(file, content);
    const id = await git(['hash-object', file], { gitDir: repo.path });
    expect(await pool.info(repo, id)).toBeUndefined();
    await git(['hash-object', '-w', file], { gitDir: repo.path });
    expect((await pool.contents(repo, id))?.content.toString()).toBe(content);
  });
});
