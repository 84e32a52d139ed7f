import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { PRE_RECEIVE_HOOK } from './hooks.ts';
import { isValidRefName, pushRefusal } from './ref-names.ts';

// Outside any repository, so `--branch` cannot expand `@{-1}` against somebody's reflog.
const scratch = mkdtempSync(path.join(tmpdir(), 'kiln-refnames-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Short names built from the characters and words that matter to git's rules. */
const shortName = fc
  .array(
    fc.constantFrom('a', 'b', '-', '.', '/', '@', '{', '}', 'HEAD', 'H', 'lock', ' ', '~', ':'),
    { minLength: 1, maxLength: 8 },
  )
  .map((parts) => parts.join(''));

/** The same, with the names at the edges of the rules drawn often rather than by luck. */
const edgyName = fc.oneof(
  shortName,
  fc.constantFrom('HEAD', 'H', '-x', 'a/-b', 'HEAD/x', 'x/HEAD', '@', 'main'),
);

function gitAcceptsBranch(name: string): boolean {
  const result = spawnSync('git', ['check-ref-format', '--branch', name], {
    cwd: scratch,
    env: { PATH: process.env.PATH ?? '', HOME: scratch, GIT_CONFIG_NOSYSTEM: '1' },
  });
  return result.status === 0;
}

/** The refs the real hook script refuses among `refs`, each sent as a creation. */
function hookRefuses(refs: readonly string[]): Set<string> {
  const sha = 'a'.repeat(40);
  const input = refs.map((ref) => `${'0'.repeat(40)} ${sha} ${ref}\n`).join('');
  const result = spawnSync('sh', ['-c', PRE_RECEIVE_HOOK], { input, cwd: scratch });
  const stderr = result.stderr.toString();
  expect(result.status).toBe(refs.some((ref) => stderr.includes(`'${ref}'`)) ? 1 : 0);
  return new Set(refs.filter((ref) => stderr.includes(`kiln: refusing '${ref}'`)));
}

describe('pushRefusal', () => {
  it('refuses HEAD as a branch or tag and parts starting with a dash', () => {
    expect(pushRefusal('refs/heads/HEAD')).toContain('HEAD');
    expect(pushRefusal('refs/tags/HEAD')).toContain('HEAD');
    expect(pushRefusal('refs/heads/a/-b')).toContain("'-'");
    expect(pushRefusal('refs/heads/feature/HEAD')).toBeUndefined();
    expect(pushRefusal('refs/heads/main')).toBeUndefined();
  });

  it('lets a push create only branches git itself accepts, refusing beyond git just dashes', () => {
    fc.assert(
      fc.property(edgyName, (name) => {
        const ours = pushRefusal(`refs/heads/${name}`) === undefined;
        const git = gitAcceptsBranch(name);
        if (ours) expect(git, name).toBe(true);
        if (git && !ours) expect(`/${name}`, name).toContain('/-');
      }),
      { numRuns: 300 },
    );
  });

  it('is what the pre-receive hook enforces on every name receive-pack lets through', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('refs/heads/', 'refs/tags/', 'refs/x/'), edgyName), {
          minLength: 1,
          maxLength: 12,
        }),
        (pairs) => {
          // receive-pack refuses names outside git's rules before the hook runs.
          const refs = [...new Set(pairs.map(([prefix, name]) => prefix + name))].filter((ref) =>
            isValidRefName(ref),
          );
          if (refs.length === 0) return;
          const refused = hookRefuses(refs);
          for (const ref of refs)
            expect(refused.has(ref), ref).toBe(pushRefusal(ref) !== undefined);
        },
      ),
      { numRuns: 60 },
    );
  });
});
