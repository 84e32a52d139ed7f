import {
  allRequiredPassed,
  type CommitJob,
  commitCheckResults,
  type RequiredCheck,
  requiredChecks,
} from '../ci/required-checks.ts';
import { NotAllowed } from '../errors.ts';
import type { ProtectedBranchService } from '../repos/protected-branch.service.ts';
import type { ProtectedBranchRecord, Repository } from '../repos/repo.types.ts';
import type { User } from '../users/user.types.ts';
import { contentBlockers } from './merge-content-rules.ts';
import type { PullReview } from './pull-review.types.ts';
import { countedVerdicts } from './review-verdicts.ts';

/** One thing that keeps a pull from merging, with Gitea's reason for it. */
export type MergeBlocker =
  | { readonly kind: 'checks'; readonly reason: string }
  | {
      readonly kind: 'approvals';
      readonly reason: string;
      readonly have: number;
      readonly need: number;
    }
  | { readonly kind: 'changes_requested'; readonly reason: string; readonly by: readonly string[] }
  | { readonly kind: 'outdated'; readonly reason: string }
  | { readonly kind: 'merge_whitelist'; readonly reason: string }
  | { readonly kind: 'unsigned'; readonly reason: string }
  | {
      readonly kind: 'protected_files';
      readonly reason: string;
      readonly files: readonly string[];
    };

/** What the base branch's protection says about merging a head into it. */
export type MergeGate = {
  /** The base branch's protection asks for checks (`enable_status_check`). */
  readonly enforced: boolean;
  /** Each required pattern with the checks it found; empty when not enforced. */
  readonly checks: readonly RequiredCheck[];
  /** Nothing blocks the merge. */
  readonly passed: boolean;
  /** What blocks it, in Gitea's order: checks, approvals, requested changes, an old base. */
  readonly blockers: readonly MergeBlocker[];
};

/** CI's record of a commit: the jobs its runs in a repository had, as the gate reads them. */
export type CommitChecks = {
  jobsOfCommit(repoId: string, sha: string): Promise<CommitJob[]>;
};

/** The pull being merged, when there is one: its reviews count. */
export type GatedPull = { readonly id: string };
/** Who would merge: the merge whitelist, when enabled, names who may. */
export type GatedMerger = User;

/** Gitea's refusal of someone off the merge whitelist; no override goes past it. */
export const NOT_ON_MERGE_WHITELIST = 'User not allowed to merge PR';

/** Gitea's refusal, word for word: clients match on it. */
export const CHECKS_NOT_PASSED =
  'not allowed to merge [reason: Not all required status checks successful]';
const reasons = {
  approvals: 'Does not have enough approvals',
  changes: 'There are requested changes',
  outdated: 'The head branch is behind the base branch',
};

/** What the gate reads besides the rules and the checks. */
export type MergeGatePorts = {
  /** The submitted reviews of a pull, oldest first. */
  readonly reviews: (pullId: string) => Promise<readonly PullReview[]>;
  /** Whether the base branch has commits the head lacks. */
  readonly behind: (repo: Repository, baseBranch: string, headSha: string) => Promise<boolean>;
  /** The files the head changes since it left the base branch. */
  readonly changedFiles: (
    repo: Repository,
    baseBranch: string,
    headSha: string,
  ) => Promise<string[]>;
};

/**
 * Whether a base branch's protection lets a pull request merge: its required checks (the jobs
 * of Kiln's own runs for the head commit; posted commit statuses are not stored, so they
 * cannot satisfy it), its required approvals (official, not dismissed, each reviewer's latest
 * verdict), no official request for changes when it blocks on them, and a head that contains
 * the base when it blocks on outdated branches.
 */
export class MergeGateService {
  readonly #rules: Pick<ProtectedBranchService, 'ruleOf' | 'mayMergeUnder'>;
  readonly #checks: CommitChecks;
  readonly #ports: MergeGatePorts;

  constructor(
    rules: Pick<ProtectedBranchService, 'ruleOf' | 'mayMergeUnder'>,
    checks: CommitChecks,
    ports: MergeGatePorts,
  ) {
    this.#rules = rules;
    this.#checks = checks;
    this.#ports = ports;
  }

  /** The gate for merging `headSha` (of `pull`) into `baseBranch` of `repo`, as it stands. */
  async gateOf(
    repo: Repository,
    baseBranch: string,
    headSha: string,
    pull?: GatedPull,
    merger?: GatedMerger,
  ): Promise<MergeGate> {
    const rule = await this.#rules.ruleOf(repo, baseBranch);
    if (!rule) return { enforced: false, checks: [], passed: true, blockers: [] };
    const blockers: MergeBlocker[] = [];
    if (merger && !(await this.#rules.mayMergeUnder(repo, rule, merger))) {
      blockers.push({ kind: 'merge_whitelist', reason: NOT_ON_MERGE_WHITELIST });
    }
    let checks: RequiredCheck[] = [];
    if (rule.enableStatusCheck) {
      const results = commitCheckResults(await this.#checks.jobsOfCommit(repo.id, headSha));
      checks = requiredChecks(rule.statusCheckContexts, results);
      if (!allRequiredPassed(checks)) {
        blockers.push({ kind: 'checks', reason: 'Not all required status checks successful' });
      }
    }
    if (pull) blockers.push(...(await this.#reviewBlockers(rule, pull, headSha)));
    if (rule.blockOnOutdatedBranch && (await this.#ports.behind(repo, baseBranch, headSha))) {
      blockers.push({ kind: 'outdated', reason: reasons.outdated });
    }
    blockers.push(
      ...(await contentBlockers(rule, () => this.#ports.changedFiles(repo, baseBranch, headSha))),
    );
    return { enforced: rule.enableStatusCheck, checks, passed: blockers.length === 0, blockers };
  }

  /**
   * Throws `NotAllowed` with Gitea's message for the first blocker unless nothing blocks the
   * merge, or `force` is set by a repository admin (`mayOverride`); then answers what the
   * merge goes past, for the record. Invariant: no merge into a protected branch happens while
   * a blocker stands, save an admin's explicit override, which is recorded.
   */
  async assertOpen(
    repo: Repository,
    baseBranch: string,
    headSha: string,
    pull?: GatedPull,
    override: { force: boolean; mayOverride: boolean; merger?: GatedMerger } = {
      force: false,
      mayOverride: false,
    },
  ): Promise<readonly MergeBlocker[]> {
    const gate = await this.gateOf(repo, baseBranch, headSha, pull, override.merger);
    const [first] = gate.blockers;
    if (!first) return [];
    if (first.kind === 'merge_whitelist') throw new NotAllowed(NOT_ON_MERGE_WHITELIST);
    // Kiln cannot sign a merge, and no override makes an unsigned commit signed.
    const unsigned = gate.blockers.find((blocker) => blocker.kind === 'unsigned');
    if (unsigned) throw new NotAllowed(`not allowed to merge [reason: ${unsigned.reason}]`);
    if (override.force && override.mayOverride) return gate.blockers;
    throw new NotAllowed(`not allowed to merge [reason: ${first.reason}]`);
  }

  // `block_on_official_review_requests` never blocks: Kiln has no review requests to wait for.
  async #reviewBlockers(rule: ProtectedBranchRecord, pull: GatedPull, headSha: string) {
    const needsReviews = rule.requiredApprovals > 0 || rule.blockOnRejectedReviews;
    if (!needsReviews) return [];
    const verdicts = countedVerdicts(await this.#ports.reviews(pull.id), {
      headSha,
      ignoreStale: rule.ignoreStaleApprovals || rule.dismissStaleApprovals,
    });
    const blockers: MergeBlocker[] = [];
    if (verdicts.approvedBy.length < rule.requiredApprovals) {
      blockers.push({
        kind: 'approvals',
        reason: reasons.approvals,
        have: verdicts.approvedBy.length,
        need: rule.requiredApprovals,
      });
    }
    if (rule.blockOnRejectedReviews && verdicts.rejectedBy.length > 0) {
      blockers.push({
        kind: 'changes_requested',
        reason: reasons.changes,
        by: verdicts.rejectedBy,
      });
    }
    return blockers;
  }
}
