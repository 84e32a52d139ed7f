import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkPackedRefsLine, restorableKind, validRefContent } from './restorable-files.ts';

/** Path segments an archive might use, honest and hostile. */
const segment = fc.oneof(
  fc.constantFrom('objects', 'info', 'pack', 'hooks', 'config', 'refs', 'heads', 'HEAD', '..', '.'),
  fc.constantFrom('alternates', 'http-alternates', 'attributes', 'post-receive', 'worktrees'),
  fc.constantFrom('modules', 'commit-graph', 'packed-refs', 'description', ''),
  fc.stringMatching(/^[0-9a-f]{2}$/),
  fc.stringMatching(/^[0-9a-f]{38}$/),
  fc.stringMatching(/^pack-[0-9a-f]{40}\.(pack|idx|keep|promisor|sh)$/),
  fc.string({ maxLength: 6 }),
);
const anyPath = fc.array(segment, { minLength: 1, maxLength: 5 }).map((parts) => parts.join('/'));

describe('restorableKind', () => {
  it('takes only object files, refs and HEAD, never behaviour or a path leaving the repository', () => {
    fc.assert(
      fc.property(anyPath, (relative) => {
        const kind = restorableKind(relative);
        if (kind === undefined) return;
        const parts = relative.split('/');
        expect(parts).not.toContain('..');
        expect(parts).not.toContain('');
        expect(relative).not.toMatch(/^(hooks|config|info|worktrees|modules)(\/|$)/);
        if (kind === 'object') {
          expect(relative.startsWith('objects/')).toBe(true);
          expect(relative).not.toMatch(/alternates|\.keep$|\.promisor$|\.sh$/);
        }
        if (kind === 'ref') expect(relative.startsWith('refs/')).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('names each kind', () => {
    expect(restorableKind('HEAD')).toBe('head');
    expect(restorableKind('packed-refs')).toBe('packed-refs');
    expect(restorableKind('refs/heads/main')).toBe('ref');
    expect(restorableKind(`objects/ab/${'c'.repeat(38)}`)).toBe('object');
    expect(restorableKind(`objects/pack/pack-${'d'.repeat(40)}.pack`)).toBe('object');
    for (const refused of ['config', 'hooks/post-receive', 'objects/info/alternates']) {
      expect(restorableKind(refused)).toBeUndefined();
    }
    expect(restorableKind('refs/heads/-x')).toBeUndefined();
    expect(restorableKind('refs/heads/a..b')).toBeUndefined();
  });
});

describe('ref contents', () => {
  it('are an id, or a symbolic ref to a branch (HEAD) or a valid ref', () => {
    const id = 'a'.repeat(40);
    expect(validRefContent(`${id}\n`, true)).toBe(true);
    expect(validRefContent('ref: refs/heads/main\n', true)).toBe(true);
    expect(validRefContent('ref: refs/tags/v1\n', true)).toBe(false);
    expect(validRefContent('ref: refs/heads/../../config\n', true)).toBe(false);
    expect(validRefContent('ref: refs/tags/v1\n', false)).toBe(true);
    fc.assert(
      fc.property(fc.string(), fc.boolean(), (text, isHead) => {
        if (!validRefContent(text, isHead)) return;
        expect(text).toMatch(/^([0-9a-f]{40}|ref: refs\/\S+)\n?$/);
      }),
    );
  });

  it('of packed-refs keep the header, valid refs and their peeled ids only', () => {
    const first = { first: true, previousKept: false };
    const later = { first: false, previousKept: true };
    expect(checkPackedRefsLine('# pack-refs with: peeled fully-peeled sorted ', first).keep).toBe(
      true,
    );
    expect(checkPackedRefsLine('# pack-refs with: peeled', later).keep).toBe(false);
    expect(checkPackedRefsLine(`${'b'.repeat(40)} refs/heads/main`, later).keep).toBe(true);
    expect(checkPackedRefsLine(`^${'b'.repeat(40)}`, later).keep).toBe(true);
    expect(checkPackedRefsLine(`^${'b'.repeat(40)}`, { ...later, previousKept: false }).keep).toBe(
      false,
    );
    expect(checkPackedRefsLine(`${'b'.repeat(40)} refs/heads/bad..name`, later)).toEqual({
      keep: false,
      ref: 'refs/heads/bad..name',
    });
  });
});
