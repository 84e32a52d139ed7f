import {
  allRequiredPassed,
  type CommitJob,
  commitCheckResults,
  type RequiredCheck,
  requiredChecks,
} from '../ci/required-checks.ts';
import { NotAllowed } from '../errors.ts';
import type { ProtectedBranchService } from '../repos/protected-branch.service.ts';
import type { Repository } from '../repos/repo.types.ts';

/** What CI says about merging a head into a base branch. */
export type MergeGate = {
  /** The base branch's protection asks for checks (`enable_status_check`). */
  readonly enforced: boolean;
  /** Each required pattern with the checks it found; empty when not enforced. */
  readonly checks: readonly RequiredCheck[];
  /** Every required check has succeeded (always, when not enforced). */
  readonly passed: boolean;
};

/** CI's record of a commit: the jobs its runs in a repository had, as the gate reads them. */
export type CommitChecks = {
  jobsOfCommit(repoId: string, sha: string): Promise<CommitJob[]>;
};

/** Gitea's refusal, word for word: clients match on it. */
export const CHECKS_NOT_PASSED =
  'not allowed to merge [reason: Not all required status checks successful]';

/**
 * Whether CI lets a pull request merge: a base branch whose protection enables status checks
 * takes a merge only once every required check of the head commit has succeeded. The checks are
 * the jobs of Kiln's own runs for that commit in the base repository (commit statuses posted
 * through the API are not stored, so they cannot satisfy it).
 */
export class MergeGateService {
  readonly #rules: Pick<ProtectedBranchService, 'ruleOf'>;
  readonly #checks: CommitChecks;

  constructor(rules: Pick<ProtectedBranchService, 'ruleOf'>, checks: CommitChecks) {
    this.#rules = rules;
    this.#checks = checks;
  }

  /** The gate for merging `headSha` into `baseBranch` of `repo`, as it stands now. */
  async gateOf(repo: Repository, baseBranch: string, headSha: string): Promise<MergeGate> {
    const rule = await this.#rules.ruleOf(repo, baseBranch);
    if (!rule?.enableStatusCheck) return { enforced: false, checks: [], passed: true };
    const results = commitCheckResults(await this.#checks.jobsOfCommit(repo.id, headSha));
    const checks = requiredChecks(rule.statusCheckContexts, results);
    return { enforced: true, checks, passed: allRequiredPassed(checks) };
  }

  /**
   * Throws `NotAllowed` with Gitea's message unless the gate is open. Invariant: no merge into a
   * branch whose protection enables status checks happens before each required check of the
   * commit being merged has succeeded; a check that has not reported counts as pending.
   */
  async assertOpen(repo: Repository, baseBranch: string, headSha: string): Promise<void> {
    if (!(await this.gateOf(repo, baseBranch, headSha)).passed) {
      throw new NotAllowed(CHECKS_NOT_PASSED);
    }
  }
}
