/**
 * The push hook's choice of content rule for a ref (src/git/kiln-hooks/pre-receive: the first
 * line of its rules file whose pattern matches) is the rule `ruleFor` picks for the branch,
 * for existing branches and new ones alike, checked in a real `sh` with generated rule names.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pushRulesOf } from '../../src/domain/repos/branch-push-rules.ts';
import { DEFAULT_RULE_SETTINGS, ruleFor } from '../../src/domain/repos/branch-rule.ts';

const US = '\u001f';

/** The index each ref's first matching line names (its protected files are `f<index>`). */
function hookChoices(lines: readonly string[], refs: readonly string[]): (number | undefined)[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'kiln-rule-order-'));
  try {
    const file = path.join(dir, 'rules');
    writeFileSync(file, `${lines.join('\n')}\n`);
    // The hook's own loop, reading one ref per line.
    const script = `set -f\nus=$(printf '\\037')\nwhile IFS= read -r ref; do rule=\n  while IFS= read -r line; do case "$ref" in \${line%%"$us"*}) rule=\${line#*"$us"}; break ;; esac; done < "$1"\n  echo "r:$rule"\ndone\n`;
    const out = execFileSync('sh', ['-c', script, 'sh', file], {
      input: refs.map((ref) => `${ref}\n`).join(''),
      encoding: 'utf8',
    });
    return out
      .trimEnd()
      .split('\n')
      .map((line) => {
        const found = /\(f(\d+)\)/.exec(line);
        return found ? Number(found[1]) : undefined;
      });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const name = fc.stringMatching(/^[ab](?:[ab/]{0,3}[ab])?$/);
const ruleName = fc.oneof(name, fc.stringMatching(/^[ab/]{0,3}[*?][ab/*]{0,2}$/));

describe('the content rule the push hook picks', () => {
  it('is the rule ruleFor picks, for existing and new branches', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(ruleName, { minLength: 1, maxLength: 5 }),
        fc.uniqueArray(name, { maxLength: 5 }),
        fc.uniqueArray(name, { minLength: 1, maxLength: 8 }),
        (names, existing, asked) => {
          const rules = names.map((branch, i) => ({
            ...DEFAULT_RULE_SETTINGS,
            branch,
            createdAt: new Date(1000 - i),
            protectedFilePatterns: `f${i}`,
          }));
          const lines = pushRulesOf(rules, existing, new Set()).map((rule) =>
            [rule.refPattern, '', rule.protectedFiles, rule.unprotectedFiles].join(US),
          );
          const chosen = hookChoices(
            lines,
            asked.map((branch) => `refs/heads/${branch}`),
          );
          asked.forEach((branch, i) => {
            const expected = ruleFor(rules, branch);
            expect(chosen[i], branch).toBe(expected ? rules.indexOf(expected) : undefined);
          });
        },
      ),
      { numRuns: 60 },
    );
  });
});
