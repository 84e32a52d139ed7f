import { posix } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Invalid } from '../../errors.ts';
import { checkArtifactName, checkItemPath, fileBlobKey } from './artifact-names.ts';
import { artifactExpiry } from './artifact-retention.ts';

const DAY = 86_400_000;
/** Strings made mostly of the characters that matter to paths. */
const pathish = fc
  .array(fc.constantFrom('a', 'b', '.', '/', '\\', '\u0000', '\n', ' '), { maxLength: 30 })
  .map((chars) => chars.join(''));

function accepted(check: () => string): string | undefined {
  try {
    return check();
  } catch (error) {
    expect(error).toBeInstanceOf(Invalid);
    return undefined;
  }
}

describe('artifact names and paths', () => {
  it('takes the names and paths the toolkit sends', () => {
    expect(checkArtifactName('build-output v1.2')).toBe('build-output v1.2');
    expect(checkItemPath('out', 'out/sub/file.txt')).toBe('out/sub/file.txt');
  });

  it('refuses names with separators or control characters, and empty ones', () => {
    for (const name of ['', ' ', 'a/b', 'a\\b', 'a:b', 'a\nb', 'x'.repeat(257), 42]) {
      expect(() => checkArtifactName(name)).toThrow(Invalid);
    }
  });

  it('accepts only paths that stay inside their artifact once extracted (generated)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          pathish,
          pathish.map((rest) => `art/${rest}`),
        ),
        (path) => {
          const ok = accepted(() => checkItemPath('art', path));
          if (ok === undefined) return;
          const extracted = posix.join('/root', ok);
          expect(extracted.startsWith('/root/art/')).toBe(true);
          expect(extracted).toBe(`/root/${ok}`);
          expect(['\\', '\u0000', '\n'].some((c) => ok.includes(c))).toBe(false);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('stores every file under a key of ids and hashes alone (generated)', () => {
    fc.assert(
      fc.property(fc.nat(), fc.string(), (id, path) => {
        for (const segment of fileBlobKey(id, path)) expect(segment).toMatch(/^[0-9a-f]+$/);
      }),
    );
  });
});

describe('artifactExpiry', () => {
  it('keeps an artifact for the days asked, never past the configured longest', () => {
    expect(artifactExpiry(0, 3, 90 * DAY).getTime()).toBe(3 * DAY);
    expect(artifactExpiry(0, '5', 90 * DAY).getTime()).toBe(5 * DAY);
    expect(artifactExpiry(0, 400, 90 * DAY).getTime()).toBe(90 * DAY);
    expect(artifactExpiry(0, undefined, 30 * DAY).getTime()).toBe(30 * DAY);
    for (const bad of [-1, 1.5, 'soon', {}]) {
      expect(() => artifactExpiry(0, bad, DAY)).toThrow(Invalid);
    }
  });
});
