import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RULE_SETTINGS,
  deployKeyMayPushUnder,
  parseRuleSettings,
  ruleFor,
} from './branch-rule.ts';

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

describe('a deploy key under a rule', () => {
  const settings = fc.record({
    enablePush: fc.boolean(),
    enablePushWhitelist: fc.boolean(),
    pushWhitelistDeployKeys: fc.boolean(),
    pushWhitelistUserIds: fc.array(fc.string(), { maxLength: 3 }),
    pushWhitelistTeamIds: fc.array(fc.string(), { maxLength: 3 }),
  });

  it('pushes only where pushing is on and a whitelist, if any, lets deploy keys in', () => {
    fc.assert(
      fc.property(settings, (change) => {
        const rule = { ...DEFAULT_RULE_SETTINGS, ...change };
        const may = deployKeyMayPushUnder(rule);
        if (!rule.enablePush) expect(may).toBe(false);
        if (rule.enablePushWhitelist && !rule.pushWhitelistDeployKeys) expect(may).toBe(false);
        // Whoever the whitelist names, people or teams, a deploy key's verdict stays the same.
        const unlisted = { ...rule, pushWhitelistUserIds: [], pushWhitelistTeamIds: [] };
        expect(deployKeyMayPushUnder(unlisted)).toBe(may);
      }),
    );
  });
});
