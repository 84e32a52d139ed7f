import {
  type CheckGlob,
  compileCheckGlob,
  matchBudget,
  matchesCheckGlob,
} from '../ci/check-glob.ts';

/**
 * The review, push and merge rules of a branch protection, in Gitea's terms. Whitelisted
 * people and teams are kept by id: a rename keeps them listed, and a team deleted and made
 * again under its name is a new team, not on the list (Gitea's API names both; see the service).
 */
export type BranchRuleSettings = {
  /** Anyone may push (with write access); false: nobody but the push whitelist, if enabled. */
  readonly enablePush: boolean;
  readonly enablePushWhitelist: boolean;
  readonly pushWhitelistUserIds: readonly string[];
  readonly pushWhitelistTeamIds: readonly string[];
  readonly pushWhitelistDeployKeys: boolean;
  readonly enableMergeWhitelist: boolean;
  readonly mergeWhitelistUserIds: readonly string[];
  readonly mergeWhitelistTeamIds: readonly string[];
  readonly requiredApprovals: number;
  readonly enableApprovalsWhitelist: boolean;
  readonly approvalsWhitelistUserIds: readonly string[];
  readonly approvalsWhitelistTeamIds: readonly string[];
  readonly blockOnRejectedReviews: boolean;
  readonly blockOnOfficialReviewRequests: boolean;
  readonly blockOnOutdatedBranch: boolean;
  readonly dismissStaleApprovals: boolean;
  readonly ignoreStaleApprovals: boolean;
  readonly requireSignedCommits: boolean;
  readonly protectedFilePatterns: string;
  readonly unprotectedFilePatterns: string;
};

/** What a protection created with none of these options has: Kiln's rule before them. */
export const DEFAULT_RULE_SETTINGS: BranchRuleSettings = {
  enablePush: true,
  enablePushWhitelist: false,
  pushWhitelistUserIds: [],
  pushWhitelistTeamIds: [],
  pushWhitelistDeployKeys: false,
  enableMergeWhitelist: false,
  mergeWhitelistUserIds: [],
  mergeWhitelistTeamIds: [],
  requiredApprovals: 0,
  enableApprovalsWhitelist: false,
  approvalsWhitelistUserIds: [],
  approvalsWhitelistTeamIds: [],
  blockOnRejectedReviews: false,
  blockOnOfficialReviewRequests: false,
  blockOnOutdatedBranch: false,
  dismissStaleApprovals: false,
  ignoreStaleApprovals: false,
  requireSignedCommits: false,
  protectedFilePatterns: '',
  unprotectedFilePatterns: '',
};

/** The stored JSON object read back; a key missing or of the wrong type takes its default. */
export function parseRuleSettings(stored: string): BranchRuleSettings {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stored);
  } catch {
    parsed = {};
  }
  const source = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<
    string,
    unknown
  >;
  const entries = Object.entries(DEFAULT_RULE_SETTINGS).map(([key, fallback]) => {
    const value = source[key];
    if (Array.isArray(fallback)) {
      return [key, Array.isArray(value) ? value.filter((v) => typeof v === 'string') : fallback];
    }
    return [key, typeof value === typeof fallback ? value : fallback];
  });
  return Object.fromEntries(entries) as BranchRuleSettings;
}

/**
 * Whether a deploy key may push under a rule, as Gitea decides it: pushing is enabled and,
 * under a push whitelist, the rule lets deploy keys push. Who added the key plays no part, so a
 * key cannot borrow its adder's place on the whitelist.
 */
export function deployKeyMayPushUnder(rule: BranchRuleSettings): boolean {
  return rule.enablePush && (!rule.enablePushWhitelist || rule.pushWhitelistDeployKeys);
}

/** Whether a rule name is a pattern (Gitea's glob characters) rather than one branch's name. */
export function isRulePattern(name: string): boolean {
  return /[*?[\]{}\\]/.test(name);
}

/**
 * The rule that governs `branch` among a repository's rules, as Gitea picks it: a rule naming
 * the branch exactly comes first, then patterns, the oldest first. Matching is bounded
 * (`matchBudget`), so no rule name can hold the event loop.
 */
export function ruleFor<R extends { readonly branch: string; readonly createdAt: Date }>(
  rules: readonly R[],
  branch: string,
): R | undefined {
  const exact = rules.find((rule) => rule.branch === branch);
  if (exact) return exact;
  const patterns = rules
    .filter((rule) => isRulePattern(rule.branch))
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  const budget = matchBudget();
  return patterns.find((rule) => {
    try {
      return matchesCheckGlob(compileCheckGlob(rule.branch), branch, budget);
    } catch {
      return false;
    }
  });
}

type GlobToken = CheckGlob['alternatives'][number][number];

/** Characters no branch name holds (git check-ref-format), or that start a shell pattern. */
const NEVER_IN_REF = /[\s*?[\\~^:]/;
/** Characters that mean something inside a shell bracket expression. */
const BRACKET_SPECIAL = /[\]\\!^[-]/;

/**
 * A rule name as `case` patterns for the push hook, one per alternative (`{a,b}` spelled out,
 * at most `MAX_GLOB_ALTERNATIVES`). Invariant: every branch the rule matches (`ruleFor`) is
 * matched by one of them, so a barred pattern freezes branches not yet created too. An
 * alternative that needs a character no branch name holds matches no branch and is left out; a
 * set the shell would read otherwise, or a literal brace, becomes any one character, which
 * freezes more, never less.
 * A name that does not compile matches no branch and gives none.
 */
export function shellPatternsOf(rule: string): string[] {
  let glob: CheckGlob;
  try {
    glob = compileCheckGlob(rule);
  } catch {
    return [];
  }
  const patterns = glob.alternatives.flatMap((tokens) => {
    const parts = tokens.map(shellToken);
    return parts.includes(undefined) ? [] : [parts.join('')];
  });
  return [...new Set(patterns)];
}

function shellToken(token: GlobToken): string | undefined {
  if (token.kind === 'star') return '*';
  if (token.kind === 'one') return '?';
  if (token.kind === 'char') {
    if (NEVER_IN_REF.test(token.char)) return undefined;
    // The hook's list refuses braces; a literal one may stand for any character.
    return /[{}]/.test(token.char) ? '?' : token.char;
  }
  const chars = token.ranges.flat();
  if (chars.some((char) => BRACKET_SPECIAL.test(char) || /\s/.test(char))) return '?';
  const body = token.ranges.map(([low, high]) => (low === high ? low : `${low}-${high}`));
  return `[${token.negated ? '!' : ''}${body.join('')}]`;
}
