import { FileGlobBudgetError, matchesFileGlob } from '../../lib/file-glob.ts';
import { fileRulesOf } from '../repos/branch-push-rules.ts';
import type { BranchRuleSettings } from '../repos/branch-rule.ts';
import type { MergeBlocker } from './merge-gate.service.ts';

/** Why a merge waits: Gitea's words for protected files, Kiln's for the signature it cannot make. */
export const MERGE_NOT_SIGNED =
  'This branch requires signed commits, and Kiln does not sign the commits a merge makes';
export const CHANGED_PROTECTED_FILES = 'Changed protected files';

/** Steps the file patterns may take over one pull's files before it counts as touching them. */
const MATCH_BUDGET = 5_000_000;
/** Most protected files a blocker names. */
const NAMED_FILES = 10;

/**
 * What a rule's content settings hold against a merge: a branch that wants signed commits
 * cannot take a merge Kiln would make unsigned (Gitea refuses when it cannot sign), and a pull
 * that changes a protected file waits for an administrator (who may override it). Invariant:
 * matching is bounded; a pull whose files take longer to judge counts as changing protected
 * ones, so a slow answer never opens the branch.
 */
export async function contentBlockers(
  rule: BranchRuleSettings,
  changedFiles: () => Promise<string[]>,
): Promise<MergeBlocker[]> {
  const blockers: MergeBlocker[] = [];
  if (rule.requireSignedCommits) blockers.push({ kind: 'unsigned', reason: MERGE_NOT_SIGNED });
  const { protectedFiles } = fileRulesOf(rule);
  if (protectedFiles !== 'all' && protectedFiles.length === 0) return blockers;
  const files = await changedFiles();
  let touched: string[];
  if (protectedFiles === 'all') {
    touched = files;
  } else {
    const budget = { steps: MATCH_BUDGET };
    try {
      touched = files.filter((file) =>
        protectedFiles.some((glob) => matchesFileGlob(glob, file, budget)),
      );
    } catch (error) {
      if (!(error instanceof FileGlobBudgetError)) throw error;
      touched = files;
    }
  }
  if (touched.length > 0) {
    blockers.push({
      kind: 'protected_files',
      reason: CHANGED_PROTECTED_FILES,
      files: touched.slice(0, NAMED_FILES),
    });
  }
  return blockers;
}
