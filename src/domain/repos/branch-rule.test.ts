import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RULE_SETTINGS, parseRuleSettings, ruleFor } from './branch-rule.ts';

const rule = (branch: string, at: number) => ({ branch, createdAt: new Date(at) });

describe('the rule of a branch', () => {
  it('prefers the exact name, then the oldest matching pattern', () => {
    const rules = [rule('release/*', 2), rule('release/1', 3), rule('rel*', 1)];
    expect(ruleFor(rules, 'release/1')?.branch).toBe('release/1');
    expect(ruleFor(rules, 'release/2')?.branch).toBe('rel*');
    expect(ruleFor(rules, 'main')).toBeUndefined();
  });

  it('never picks a rule that neither names nor matches the branch', () => {
    const name = fc.stringMatching(/^[a-c/]{1,8}$/);
    fc.assert(
      fc.property(fc.array(name, { maxLength: 6 }), name, (names, branch) => {
        const picked = ruleFor(
          names.map((n, i) => rule(n, i)),
          branch,
        );
        if (picked) expect(picked.branch).toBe(branch);
      }),
    );
  });

  it('reads stored settings, taking defaults for what is missing or malformed', () => {
    expect(parseRuleSettings('not json')).toEqual(DEFAULT_RULE_SETTINGS);
    const read = parseRuleSettings(
      '{"requiredApprovals": 2, "enablePush": "yes", "pushWhitelistUserIds": ["u", 3]}',
    );
    expect(read.requiredApprovals).toBe(2);
    expect(read.enablePush).toBe(true);
    expect(read.pushWhitelistUserIds).toEqual(['u']);
  });
});
