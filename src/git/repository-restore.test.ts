import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PRE_RECEIVE_HOOK } from './hooks.ts';
import { RepositoryRestorer } from './repository-restore.ts';
import { makeTempDir, type TempDir } from './test-support.ts';

let tmp: TempDir;
beforeEach(async () => {
  tmp = await makeTempDir();
});
afterEach(() => tmp.remove());

const add = (restorer: RepositoryRestorer, relative: string, text: string, type = 'file') =>
  restorer.add({
    name: `archive/${relative}`,
    relative,
    type,
    content: Readable.from([Buffer.from(text)]),
  });

describe('RepositoryRestorer', () => {
  it('keeps the first of two entries for one path and reports the other', async () => {
    const restorer = new RepositoryRestorer(tmp.path);
    const object = `alice/tools.git/objects/ab/${'c'.repeat(38)}`;
    await add(restorer, object, 'first');
    await add(restorer, object, 'second');
    await add(restorer, 'alice/tools.git/refs/heads/a', `${'d'.repeat(40)}\n`);
    await add(restorer, 'alice/tools.git/refs/heads/a/b', `${'d'.repeat(40)}\n`);
    await restorer.finish();
    const repo = path.join(tmp.path, 'alice', 'tools.git');
    expect(await readFile(path.join(repo, 'objects', 'ab', 'c'.repeat(38)), 'utf8')).toBe('first');
    expect(restorer.skipped.paths).toEqual([
      { path: `archive/${object}`, reason: 'clashes with a path restored before it' },
      {
        path: 'archive/alice/tools.git/refs/heads/a/b',
        reason: 'clashes with a path restored before it',
      },
    ]);
    expect(await readdir(path.join(repo, 'hooks'))).toEqual(['pre-receive']);
    expect(await readFile(path.join(repo, 'hooks', 'pre-receive'), 'utf8')).toBe(PRE_RECEIVE_HOOK);
    expect(await readdir(repo)).not.toContain('kiln-creating');
  });

  it('refuses repository directories Kiln would not name, and alternates leaving the dump', async () => {
    const restorer = new RepositoryRestorer(tmp.path);
    await add(restorer, 'Alice/tools.git/HEAD', 'ref: refs/heads/main\n');
    await add(restorer, 'alice/tools/HEAD', 'ref: refs/heads/main\n');
    await add(restorer, 'bob/fork.git/objects/info/alternates', '/srv/elsewhere/objects\n');
    await add(
      restorer,
      'carol/fork.git/objects/info/alternates',
      '../../../dave/gone.git/objects\n',
    );
    await restorer.finish();
    expect(restorer.repositories).toEqual(['bob/fork.git', 'carol/fork.git']);
    expect(restorer.skipped.paths.map((skipped) => skipped.reason)).toEqual([
      'not a repository directory Kiln would name',
      'not a repository directory Kiln would name',
      'alternates naming a store that is not a repository of this dump',
      'borrows from a repository the dump lacks',
    ]);
  });
});
