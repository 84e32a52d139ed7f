/**
 * The push hook's reading of pattern rules: each rule handed to it as shell `case` patterns
 * (src/git/kiln-hooks/pre-receive) matches, in a real `sh`, every branch the rule governs, so
 * a rule that bars a pusher bars creating its branches too.
 */
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ruleFor, shellPatternsOf } from '../../src/domain/repos/branch-rule.ts';
import { frozenRefsEnv } from '../../src/git/hooks.ts';

describe('a rule as the push hook reads it', () => {
  /** Which `case` patterns match which names, as the hook's shell answers. */
  function shellMatches(cases: readonly { patterns: string[]; branch: string }[]): boolean[] {
    const script =
      'set -f\nnl=\'\n\'\nwhile IFS= read -r b && IFS= read -r ps; do m=0; IFS=$nl; for p in $(printf %b "$ps"); do case "$b" in $p) m=1;; esac; done; IFS=; echo $m; done\n';
    const input = cases
      .map(({ patterns, branch }) => `${branch}\n${patterns.join('\\n').replaceAll('%', '%%')}\n`)
      .join('');
    const out = execFileSync('sh', ['-c', script], { input, encoding: 'utf8' });
    return out
      .trim()
      .split('\n')
      .map((line) => line === '1');
  }

  it('spells out braces and keeps a pattern to what it matches', () => {
    expect(shellPatternsOf('{hotfix,patch}/*')).toEqual(['hotfix/*', 'patch/*']);
    expect(shellPatternsOf('v[0-9]*')).toEqual(['v[0-9]*']);
    expect(shellPatternsOf('a\\*b')).toEqual([]);
    expect(shellPatternsOf('[')).toEqual([]);
  });

  it('hands the hook only patterns it can read', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), (rule) => {
        const patterns = shellPatternsOf(rule).map((p) => `refs/heads/${p}`);
        expect(() => frozenRefsEnv([], patterns)).not.toThrow();
      }),
    );
  });

  it('matches, in the shell, every branch the rule governs', () => {
    const rule = fc.stringMatching(/^[ab/*?{},!\-\][\\^]{1,8}$/);
    const branch = fc.stringMatching(/^[ab!\-\]{},]{1,4}(\/[ab]{1,2})?$/);
    const cases = fc
      .sample(fc.record({ rule, branch }), 4000)
      // A name spelled exactly is frozen as a name, not a pattern (pushRestrictions).
      .filter((c) => c.rule !== c.branch)
      .filter((c) => ruleFor([{ branch: c.rule, createdAt: new Date(0) }], c.branch))
      .map((c) => ({ ...c, patterns: shellPatternsOf(c.rule) }));
    expect(cases.length).toBeGreaterThan(20);
    const answers = shellMatches(cases);
    cases.forEach((c, i) => {
      expect(answers[i], `${c.rule} ${c.branch} ${c.patterns.join(' ')}`).toBe(true);
    });
  });
});
