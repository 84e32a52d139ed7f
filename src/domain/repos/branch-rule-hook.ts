import { isValidRefName } from '../../git/ref-names.ts';
import { isRulePattern, shellPatternsOf } from './branch-rule.ts';

/** Rules as the push hook is handed them: full ref names, and shell patterns over them. */
export type HookRefs = { readonly names: string[]; readonly patterns: string[] };

/**
 * The refs some rules govern, as the push hook matches them against the refs a push names (so
 * no branch is listed to find them): each rule's name when a branch can have it (a rule governs
 * the branch its name spells exactly, a pattern's name too, `ruleFor`), and each pattern rule as
 * shell patterns. Invariant (`shellPatternsOf`): every branch a pattern rule matches is matched
 * by one of its shell patterns, branches not yet created included; where the shell cannot say
 * exactly what the rule says, the pattern matches more, never less.
 */
export function hookRefsOf(rules: readonly { readonly branch: string }[]): HookRefs {
  const names = rules
    .map((rule) => rule.branch)
    .filter((name) => !isRulePattern(name) || isValidRefName(`refs/heads/${name}`));
  const patterns = rules
    .filter((rule) => isRulePattern(rule.branch))
    .flatMap((rule) => shellPatternsOf(rule.branch));
  return {
    names: [...new Set(names)].sort().map((name) => `refs/heads/${name}`),
    patterns: [...new Set(patterns)].map((pattern) => `refs/heads/${pattern}`),
  };
}
