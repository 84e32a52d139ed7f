import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Invalid, NotFound } from '../domain/errors.ts';
import { createArchive } from './archive.ts';
import { CatFilePool } from './cat-file-pool.ts';
import type { RepoHandle } from './repo-paths.ts';
import {
  commitFiles,
  eventually,
  git,
  makeTestRepo,
  processesIn,
  type TempDir,
} from './test-support.ts';

let tmp: TempDir;
let repo: RepoHandle;
let pool: CatFilePool;
let sha: string;

beforeAll(async () => {
  ({ tmp, repo } = await makeTestRepo({ owner: 'Alice', name: 'Tools' }));
  sha = await commitFiles(repo.path, {
    branch: 'main',
    files: { 'README.md': '# tools\n', 'src/main.ts': 'x\n' },
  });
  await git(['branch', 'release/1.x', sha], { gitDir: repo.path });
  pool = new CatFilePool();
});
afterAll(async () => {
  await pool.closeAll();
  await tmp.remove();
});

/** Lists an archive's entries with the system's own tools (the client's view). */
async function entries(file: string, format: 'zip' | 'tar.gz'): Promise<string[]> {
  const result =
    format === 'zip'
      ? spawnSync('unzip', ['-Z1', file], { encoding: 'utf8' })
      : spawnSync('tar', ['tzf', file], { encoding: 'utf8' });
  expect(result.status).toBe(0);
  return result.stdout.split('\n').filter(Boolean).sort();
}

describe('createArchive', () => {
  for (const format of ['zip', 'tar.gz'] as const) {
    it(`streams a ${format} with {name}-{ref}/ as the top directory`, async () => {
      const archive = await createArchive(pool, repo, { revision: 'release/1.x', format });
      expect(archive.commitSha).toBe(sha);
      expect(archive.fileName).toBe(`Tools-release-1.x.${format}`);
      const file = path.join(tmp.path, archive.fileName);
      await pipeline(archive.stream, createWriteStream(file));
      expect(await entries(file, format)).toEqual([
        'Tools-release-1.x/',
        'Tools-release-1.x/README.md',
        'Tools-release-1.x/src/',
        'Tools-release-1.x/src/main.ts',
      ]);
    });
  }

  it('is NotFound for an unknown ref before any stream exists', async () => {
    await expect(
      createArchive(pool, repo, { revision: 'nope', format: 'zip' }),
    ).rejects.toBeInstanceOf(NotFound);
    await expect(
      createArchive(pool, repo, { revision: '--output=/tmp/x', format: 'zip' }),
    ).rejects.toBeInstanceOf(Invalid);
  });

  it('stops git when the reader goes away', async () => {
    const archive = await createArchive(pool, repo, { revision: sha, format: 'tar.gz' });
    archive.stream.destroy();
    await new Promise((resolve) => archive.stream.once('close', resolve));
    // Nothing but the pool's cat-file is left running in the repository.
    await eventually(async () =>
      (await processesIn(repo.path)).every((cmd) => cmd.includes('cat-file')),
    );
  });
});
