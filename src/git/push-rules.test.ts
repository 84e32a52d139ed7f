import { execFile } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileFileGlob, fileGlobsToEre, matchesFileGlob } from '../lib/file-glob.ts';

/** The paths of `paths` that `grep -E -i -x -z` (as the push hook runs it) matches. */
function grepMatches(ere: string, paths: readonly string[]): Promise<Set<string>> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'grep',
      ['-E', '-i', '-x', '-z', '-e', ere],
      { env: { LC_ALL: 'C.UTF-8', PATH: process.env.PATH ?? '/usr/bin:/bin' } },
      (error, stdout) => {
        if (error && error.code !== 1) reject(error);
        else resolve(new Set(stdout.split('\0').filter((p) => p !== '')));
      },
    );
    child.stdin?.end(paths.map((p) => `${p}\0`).join(''));
  });
}

const patternPiece = fc.constantFrom('a', 'B', '.', '/', '*', '**', '?', '[ab]', '[!a]', '{a,b.}');
const pathChar = fc.constantFrom('a', 'b', 'A', '.', '/', 'c');

describe('file patterns: the server and the push hook agree', () => {
  it('matches what grep matches with the expression the hook is given, for any pattern', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(patternPiece, { minLength: 1, maxLength: 6 }),
        fc.array(fc.array(pathChar, { minLength: 1, maxLength: 8 }), {
          minLength: 1,
          maxLength: 30,
        }),
        async (pieces, chars) => {
          const glob = compileFileGlob(pieces.join(''));
          const paths = [...new Set(chars.map((c) => c.join('')))];
          const byGrep = await grepMatches(fileGlobsToEre([glob]) ?? '', paths);
          for (const path of paths) {
            expect(matchesFileGlob(glob, path, { steps: 1e6 }), path).toBe(byGrep.has(path));
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('reads Gitea\'s separators: one star stops at "." and "/", two do not', () => {
    const at = (pattern: string, path: string) =>
      matchesFileGlob(compileFileGlob(pattern), path, { steps: 1e6 });
    expect(at('*.yml', 'ci.yml')).toBe(true);
    expect(at('*.yml', 'a/ci.yml')).toBe(false);
    expect(at('README*', 'README.md')).toBe(false);
    expect(at('docs/**', 'docs/a/b.md')).toBe(true);
    expect(at('CI.YML', 'ci.yml')).toBe(true);
  });

  it('gives up within its budget on a path built to be slow', () => {
    const glob = compileFileGlob('*a*a*a*a*a*a*b');
    expect(() => matchesFileGlob(glob, 'a'.repeat(4000), { steps: 10_000 })).toThrow(/too long/);
  });
});
