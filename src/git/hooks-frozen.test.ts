import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileCheckGlob, matchBudget, matchesCheckGlob } from '../domain/ci/check-glob.ts';
import { frozenRefsEnv } from './hooks.ts';
import { KILN_HOOKS_DIR } from './kiln-hooks.ts';

/**
 * The hook's refusal of frozen refs: fed `<old> <new> <ref>` lines as receive-pack feeds them,
 * it refuses exactly the refs listed and those a frozen pattern matches, and reads patterns as
 * the protection rules do (`*` and `?` across `/`, `[…]` sets), for generated names and
 * patterns, since a hook more lenient than the rules would let a barred pusher through.
 */
function hookRefuses(ref: string, env: Record<string, string>): boolean {
  const line = `${'1'.repeat(40)} ${'2'.repeat(40)} ${ref}\n`;
  const result = spawnSync('sh', [`${KILN_HOOKS_DIR}/pre-receive`], {
    input: line,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
  });
  return result.status !== 0;
}

const part = fc.stringMatching(/^[a-c][a-c0-9.]{0,3}$/);
const branch = fc.array(part, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/'));
const pattern = fc
  .array(fc.oneof(part, fc.constantFrom('*', '?', '[ab]', '[!a]', '*/*')), {
    minLength: 1,
    maxLength: 3,
  })
  .map((parts) => parts.join('/'));

describe('frozen refs in the pre-receive hook', () => {
  it('refuses a listed ref and lets another through', () => {
    const env = frozenRefsEnv(['refs/heads/main'], []);
    expect(hookRefuses('refs/heads/main', env)).toBe(true);
    expect(hookRefuses('refs/heads/mainline', env)).toBe(false);
  });

  it('matches patterns as the protection rules do', () => {
    fc.assert(
      fc.property(pattern, branch, (glob, name) => {
        const env = frozenRefsEnv([], [`refs/heads/${glob}`]);
        const rules = matchesCheckGlob(compileCheckGlob(glob), name, matchBudget());
        expect(hookRefuses(`refs/heads/${name}`, env)).toBe(rules);
      }),
      { numRuns: 60 },
    );
  });

  it('refuses patterns the hook could not read as written', () => {
    for (const bad of ['refs/heads/{a,b}', 'refs/heads/a b', 'refs/heads/a\\*', 'release/*']) {
      expect(() => frozenRefsEnv([], [bad])).toThrow();
    }
  });
});
