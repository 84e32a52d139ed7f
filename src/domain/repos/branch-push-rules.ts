import type { PushRule } from '../../git/push-rules.ts';
import {
  compileFileGlob,
  type FileGlob,
  FileGlobError,
  fileGlobsToEre,
  splitFilePatterns,
} from '../../lib/file-glob.ts';
import { type BranchRuleSettings, isRulePattern, ruleFor, shellPatternsOf } from './branch-rule.ts';

/** A rule as the push checks read it: its name, when it was made, its settings. */
type Rule = BranchRuleSettings & { readonly branch: string; readonly createdAt: Date };

/** An expression no path fails: what a protected list that does not compile stands for. */
const EVERY_FILE = '.*';

/**
 * A rule's file patterns, compiled. A pattern that does not compile (stored before patterns
 * were checked) protects every file when it is a protected one, so a typo never opens a
 * branch, and lets nothing through when it is an unprotected one.
 */
export function fileRulesOf(rule: BranchRuleSettings): {
  protectedFiles: readonly FileGlob[] | 'all';
  unprotectedFiles: readonly FileGlob[];
} {
  const compiled = (list: string) =>
    splitFilePatterns(list).map((pattern) => {
      try {
        return compileFileGlob(pattern);
      } catch (error) {
        if (error instanceof FileGlobError) return undefined;
        throw error;
      }
    });
  const protectedGlobs = compiled(rule.protectedFilePatterns);
  return {
    protectedFiles: protectedGlobs.includes(undefined) ? 'all' : (protectedGlobs as FileGlob[]),
    unprotectedFiles: compiled(rule.unprotectedFilePatterns).filter((g) => g !== undefined),
  };
}

/** Whether a rule lets a pusher it bars through with changes to unprotected files only. */
export function hasUnprotectedFiles(rule: BranchRuleSettings): boolean {
  return fileRulesOf(rule).unprotectedFiles.length > 0;
}

/** Whether any rule asks the hook to look into the commits of this pusher's push. */
export function wantsPushRules<R extends Rule>(
  rules: readonly R[],
  limited: ReadonlySet<R>,
): boolean {
  return rules.some(
    (rule) =>
      rule.requireSignedCommits || rule.protectedFilePatterns.trim() !== '' || limited.has(rule),
  );
}

/**
 * The hook's content rules for one pusher (see push-rules.ts), or none when no rule asks for
 * signed commits or guards files. `limited` holds the rules that bar this pusher but let
 * changes to unprotected files through. Invariant: the first line matching a ref names the
 * rule `ruleFor` picks for its branch: existing branches come first by their exact names, then
 * plain rule names, then pattern rules oldest first, whose shell patterns match every branch
 * the rule does (`shellPatternsOf`), so a new branch is never checked under less.
 */
export function pushRulesOf<R extends Rule>(
  rules: readonly R[],
  branches: readonly string[],
  limited: ReadonlySet<R>,
): PushRule[] {
  if (!wantsPushRules(rules, limited)) return [];
  const lineOf = (rule: R, refPattern: string): PushRule => {
    const files = fileRulesOf(rule);
    const unprotectedOnly = limited.has(rule);
    return {
      refPattern,
      signed: rule.requireSignedCommits,
      unprotectedOnly,
      protectedFiles:
        files.protectedFiles === 'all' ? EVERY_FILE : (fileGlobsToEre(files.protectedFiles) ?? ''),
      unprotectedFiles: unprotectedOnly ? (fileGlobsToEre(files.unprotectedFiles) ?? '') : '',
    };
  };
  const lines: PushRule[] = [];
  for (const branch of branches) {
    const rule = ruleFor(rules, branch);
    if (rule) lines.push(lineOf(rule, `refs/heads/${branch}`));
  }
  for (const rule of rules.filter((r) => !isRulePattern(r.branch))) {
    lines.push(lineOf(rule, `refs/heads/${rule.branch}`));
  }
  const patterns = rules
    .filter((rule) => isRulePattern(rule.branch))
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  for (const rule of patterns) {
    for (const pattern of shellPatternsOf(rule.branch)) {
      lines.push(lineOf(rule, `refs/heads/${pattern}`));
    }
  }
  return lines;
}
