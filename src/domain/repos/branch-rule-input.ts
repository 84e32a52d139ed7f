import { isValidRefName } from '../../git/ref-names.ts';
import { compileFileGlob, FileGlobError, splitFilePatterns } from '../../lib/file-glob.ts';
import { CheckGlobError, compileCheckGlob } from '../ci/check-glob.ts';
import { Invalid } from '../errors.ts';
import { type BranchRuleSettings, isRulePattern } from './branch-rule.ts';
import type { RequiredCheckRule } from './repo.types.ts';

/** Most required-check patterns one protection may hold. */
export const MAX_REQUIRED_CHECKS = 100;
/** Most names one whitelist may hold. */
export const MAX_WHITELIST = 100;
/** Most approvals a rule may require. */
export const MAX_REQUIRED_APPROVALS = 100;

type Flags = Omit<
  BranchRuleSettings,
  | 'pushWhitelistUserIds'
  | 'mergeWhitelistUserIds'
  | 'approvalsWhitelistUserIds'
  | 'pushWhitelistTeamIds'
  | 'mergeWhitelistTeamIds'
  | 'approvalsWhitelistTeamIds'
>;

/**
 * A change to a protection as a client sends it (people by handle, teams by name); what is
 * left out stays as it is.
 */
export type ProtectionChange = Partial<RequiredCheckRule> &
  Partial<Flags> & {
    readonly pushWhitelistUsernames?: readonly string[];
    readonly pushWhitelistTeams?: readonly string[];
    readonly mergeWhitelistUsernames?: readonly string[];
    readonly mergeWhitelistTeams?: readonly string[];
    readonly approvalsWhitelistUsernames?: readonly string[];
    readonly approvalsWhitelistTeams?: readonly string[];
  };

/** A rule's name: a branch name, or a glob over branch names that compiles. */
export function checkRuleName(name: string): string {
  const clean = name.trim();
  // Whitespace and control characters name no branch, and would split the hook's pattern list.
  const unreadable = [...clean].some((ch) => /\s/.test(ch) || ch < ' ' || ch === '\u007f');
  if (unreadable) throw new Invalid(`"${clean}" is not a valid rule name`);
  if (isRulePattern(clean)) {
    // A pattern names branches, so it is held to their rules with its glob characters read as
    // letters: no reflog syntax, no `..`, no backslash (which no branch name holds), no option.
    const shape = clean.replace(/[*?[\]{}]/g, 'x');
    const unsafe = clean.includes('\\') || clean.includes('@{') || clean.startsWith('-');
    if (unsafe || !isValidRefName(`refs/heads/${shape}`)) {
      throw new Invalid(`"${clean}" is not a valid rule name`);
    }
    checkPattern(clean, 'rule_name');
    return clean;
  }
  if (clean.startsWith('-') || !isValidRefName(`refs/heads/${clean}`)) {
    throw new Invalid(`"${clean}" is not a valid branch name`);
  }
  return clean;
}

/**
 * Required-check patterns as stored: empty ones dropped, each once, each one that compiles as
 * Gitea's globs do. Throws `Invalid` naming the first that does not, or when there are too many.
 */
export function checkPatterns(patterns: readonly string[]): string[] {
  const kept = [...new Set(patterns.filter((pattern) => pattern.trim() !== ''))];
  if (kept.length > MAX_REQUIRED_CHECKS) {
    throw new Invalid(`at most ${MAX_REQUIRED_CHECKS} status check contexts`);
  }
  for (const pattern of kept) checkPattern(pattern, 'status check context');
  return kept;
}

function checkPattern(pattern: string, what: string): void {
  try {
    compileCheckGlob(pattern);
  } catch (error) {
    if (!(error instanceof CheckGlobError)) throw error;
    throw new Invalid(`${what} "${pattern}" is not a valid pattern: ${error.message}`);
  }
}

/** Names of a whitelist: trimmed, empty ones dropped, each once, a bounded number. */
export function checkNames(names: readonly string[], what: string): string[] {
  const kept = [...new Set(names.map((name) => name.trim()).filter((name) => name !== ''))];
  if (kept.length > MAX_WHITELIST) throw new Invalid(`at most ${MAX_WHITELIST} ${what}`);
  for (const name of kept) {
    if (name.length > 255) throw new Invalid(`${what} "${name.slice(0, 40)}…" is too long`);
  }
  return kept;
}

export function checkApprovals(count: number): number {
  if (!Number.isSafeInteger(count) || count < 0 || count > MAX_REQUIRED_APPROVALS) {
    throw new Invalid(`required_approvals must be 0 to ${MAX_REQUIRED_APPROVALS}`);
  }
  return count;
}

/** Most patterns one file pattern list may hold. */
export const MAX_FILE_PATTERNS = 50;

/**
 * A `protected_file_patterns` or `unprotected_file_patterns` list as stored: Gitea's
 * `;`-separated patterns, each one that compiles (lib/file-glob.ts). Throws `Invalid` naming
 * the first that does not, or when there are too many.
 */
export function checkFilePatterns(list: string, what: string): string {
  const patterns = splitFilePatterns(list);
  if (patterns.length > MAX_FILE_PATTERNS) {
    throw new Invalid(`at most ${MAX_FILE_PATTERNS} ${what}`);
  }
  for (const pattern of patterns) {
    try {
      compileFileGlob(pattern);
    } catch (error) {
      if (!(error instanceof FileGlobError)) throw error;
      throw new Invalid(`${what} "${pattern}" is not a valid pattern: ${error.message}`);
    }
  }
  return list;
}
