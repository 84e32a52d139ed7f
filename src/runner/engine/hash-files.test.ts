import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { interpolate } from './expressions.ts';
import { hashFiles } from './hash-files.ts';

const FILES: Record<string, string> = {
  'package-lock.json': '{"lockfileVersion":3}\n',
  'a.lock': 'alpha\n',
  'sub/b.lock': 'bravo\n',
  'sub/deep/c.lock': 'charlie\n',
  '.hidden/d.lock': 'delta\n',
  'notes.txt': 'not a lock\n',
};

let root: string;
let workspace: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'kiln-hashfiles-'));
  workspace = join(root, 'workspace');
  for (const [name, content] of Object.entries(FILES)) {
    await mkdir(dirname(join(workspace, name)), { recursive: true });
    await writeFile(join(workspace, name), content);
  }
  // A file outside the workspace, reachable only by a pattern that leaves it.
  await writeFile(join(root, 'outside.lock'), 'outside\n');
  await symlink(join(workspace, 'a.lock'), join(workspace, 'sub', 'link.lock'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** GitHub's definition, spelled out: SHA-256 over each file's SHA-256 digest, in the given order. */
function expected(contents: string[]): string {
  const digests = contents.map((content) => createHash('sha256').update(content).digest());
  return createHash('sha256').update(Buffer.concat(digests)).digest('hex');
}

describe('hashFiles()', () => {
  it('hashes one file as the SHA-256 of its SHA-256', () => {
    const inner = createHash('sha256').update('{"lockfileVersion":3}\n').digest();
    expect(hashFiles(workspace, ['package-lock.json'])).toBe(
      createHash('sha256').update(inner).digest('hex'),
    );
  });

  it('hashes every match, dot directories and links to files included, in sorted path order', () => {
    // Sorted: .hidden/d.lock, a.lock, sub/b.lock, sub/deep/c.lock, sub/link.lock (→ a.lock)
    expect(hashFiles(workspace, ['**/*.lock'])).toBe(
      expected(['delta\n', 'alpha\n', 'bravo\n', 'charlie\n', 'alpha\n']),
    );
  });

  it('lets a later ! pattern exclude, and a later pattern include again', () => {
    expect(hashFiles(workspace, ['**/*.lock', '!sub/**', '!.hidden'])).toBe(expected(['alpha\n']));
    expect(hashFiles(workspace, ['**/*.lock\n!sub\nsub/deep/*.lock'])).toBe(
      expected(['delta\n', 'alpha\n', 'charlie\n']),
    );
  });

  it('takes a directory for every file beneath it', () => {
    expect(hashFiles(workspace, ['sub/deep'])).toBe(expected(['charlie\n']));
  });

  it('answers the empty string when nothing matches, and never looks outside the workspace', () => {
    expect(hashFiles(workspace, ['**/*.nothing'])).toBe('');
    expect(hashFiles(workspace, ['../outside.lock'])).toBe('');
    expect(hashFiles(workspace, [join(root, 'outside.lock')])).toBe('');
    expect(hashFiles(workspace, ['!**/*.lock'])).toBe('');
  });

  it('is available in expressions, relative to the job workspace', () => {
    const contexts = { github: { workspace } };
    expect(interpolate(`key-\${{ hashFiles('**/package-lock.json') }}`, contexts, 'success')).toBe(
      `key-${expected(['{"lockfileVersion":3}\n'])}`,
    );
    expect(interpolate(`\${{ hashFiles('sub/b.lock', 'a.lock') }}`, contexts, 'success')).toBe(
      expected(['alpha\n', 'bravo\n']),
    );
    expect(interpolate(`[\${{ hashFiles('none/*') }}]`, contexts, 'success')).toBe('[]');
  });
});
