import type { PushRule } from '../../git/push-rules.ts';
import type { TeamIds } from '../orgs/team-ids.ts';
import type { User } from '../users/user.types.ts';
import { hasUnprotectedFiles, pushRulesOf, wantsPushRules } from './branch-push-rules.ts';
import { type BranchRuleSettings, deployKeyMayPushUnder, ruleFor } from './branch-rule.ts';
import { hookRefsOf } from './branch-rule-hook.ts';
import type { ProtectedBranchStore } from './protected-branch.store.ts';
import { mayWrite } from './repo.policy.ts';
import type { RepoService } from './repo.service.ts';
import {
  atLeast,
  type ProtectedBranchRecord,
  type RepoAccess,
  type Repository,
} from './repo.types.ts';

/** What enforcing the rules reads beyond their rows: teams by id, branches, signing keys. */
export type BranchRuleGuardPorts = {
  /** Teams by id, as rules keep them. */
  readonly teamIds: Pick<TeamIds, 'isMemberOfAny'>;
  /** The repository's branch names, to place content rules (files, signatures) for the hook. */
  readonly branchNames: (repo: Repository) => Promise<string[]>;
  /** git's allowed-signers list of people's keys, for rules that want signed commits. */
  readonly allowedSigners: () => Promise<string>;
};

/** What the push hook is given for one pusher (see `pushRestrictions`). */
export type PushRestrictions = {
  readonly frozenRefs: string[];
  readonly frozenPatterns: string[];
  readonly pushRules: PushRule[];
  readonly allowedSigners?: string;
};

/**
 * What branch protection rules enforce, read as they stand at each use: which branches the
 * push hook keeps from deletion and rewinding, who may push to a branch (and what a push may
 * change), who may merge into it, and whose verdict on a pull into it counts. Managing the
 * rules is `ProtectedBranchService`'s, built on this.
 */
export class BranchRuleGuard {
  readonly #repos: Pick<RepoService, 'accessOf'>;
  readonly #store: Pick<ProtectedBranchStore, 'listRecords'>;
  readonly #ports: BranchRuleGuardPorts;

  constructor(
    repos: Pick<RepoService, 'accessOf'>,
    store: Pick<ProtectedBranchStore, 'listRecords'>,
    ports: BranchRuleGuardPorts,
  ) {
    this.#repos = repos;
    this.#store = store;
    this.#ports = ports;
  }

  /** Every protection of a repository the caller has already found visible, by name. */
  async records(repo: Repository): Promise<ProtectedBranchRecord[]> {
    return this.#store.listRecords(repo.id);
  }

  /**
   * What the hook protects from deletion and rewinding, as full ref names and shell patterns
   * (`hookRefsOf`): the hook matches them against the refs a push names, so no branch is listed.
   */
  async protectedRefs(
    repo: Repository,
  ): Promise<{ protectedRefs: string[]; protectedPatterns: string[] }> {
    const { names, patterns } = hookRefsOf(await this.records(repo));
    return { protectedRefs: names, protectedPatterns: patterns };
  }

  /**
   * What `pusher` may not push to at all, for the hook: the existing branches whose rule bars
   * them (push disabled, or a push whitelist without them), the names of plain rules that do
   * (so the branch cannot be created either), and the patterns of pattern rules that do, as
   * shell patterns. Invariant: nobody pushes to a branch whose rule does not let them, over
   * any transport that starts receive-pack through `receivePack` with these. A push made with
   * a deploy key is the key's, not its adder's: under a push whitelist it goes through only
   * when the rule lets deploy keys push (`pushWhitelistDeployKeys`), whoever added the key.
   */
  async pushRestrictions(
    repo: Repository,
    pusher: User,
    via: { readonly deployKey?: boolean } = {},
  ): Promise<PushRestrictions> {
    const records = await this.records(repo);
    const barred: ProtectedBranchRecord[] = [];
    // Barred, but let through with changes to unprotected files only: the hook decides.
    const limited = new Set<ProtectedBranchRecord>();
    for (const record of records) {
      const may = via.deployKey
        ? deployKeyMayPushUnder(record)
        : await this.#mayPushUnder(repo, record, pusher);
      if (!may) hasUnprotectedFiles(record) ? limited.add(record) : barred.push(record);
    }
    // The barred rules' names and patterns reach every branch they govern (`hookRefsOf`).
    const { names, patterns } = hookRefsOf(barred);
    // Content rules (files, signatures) are placed on branches (`pushRulesOf`): the branch list
    // is read only when some rule looks into the commits.
    if (!wantsPushRules(records, limited)) {
      return { frozenRefs: names, frozenPatterns: patterns, pushRules: [] };
    }
    const pushRules = pushRulesOf(records, await this.#ports.branchNames(repo), limited);
    const signers = pushRules.some((rule) => rule.signed)
      ? { allowedSigners: await this.#ports.allowedSigners() }
      : {};
    return { frozenRefs: names, frozenPatterns: patterns, pushRules, ...signers };
  }

  /**
   * Whether `pusher` may move `branch` by a push, for what moves a branch without one (a fork
   * brought up to its upstream): the same rule the hook applies (`pushRestrictions`).
   */
  async mayPushTo(repo: Repository, branch: string, pusher: User): Promise<boolean> {
    const rule = await this.ruleOf(repo, branch);
    return !rule || this.#mayPushUnder(repo, rule, pusher);
  }

  async #mayPushUnder(repo: Repository, rule: BranchRuleSettings, pusher: User) {
    if (!rule.enablePush) return false;
    if (!rule.enablePushWhitelist) return true;
    return this.#listed(repo, pusher, rule.pushWhitelistUserIds, rule.pushWhitelistTeamIds);
  }

  /** The rule that governs merging into and pushing to `branch`; undefined when none does. */
  async ruleOf(repo: Repository, branch: string): Promise<ProtectedBranchRecord | undefined> {
    return ruleFor(await this.#store.listRecords(repo.id), branch);
  }

  /**
   * Whether a reviewer's verdict on a pull into `branch` counts (Gitea's "official" review):
   * with an approvals whitelist, being on it (by name or team); without one, write access.
   */
  async isOfficialReviewer(
    context: { base: { repo: Repository; access: RepoAccess }; pull: { baseBranch: string } },
    reviewer: User,
  ): Promise<boolean> {
    const rule = await this.ruleOf(context.base.repo, context.pull.baseBranch);
    if (!rule?.enableApprovalsWhitelist) return mayWrite(context.base.access);
    return this.#listed(
      context.base.repo,
      reviewer,
      rule.approvalsWhitelistUserIds,
      rule.approvalsWhitelistTeamIds,
    );
  }

  /** Whether the rule's merge whitelist (when enabled) lets `user` merge. */
  async mayMergeUnder(repo: Repository, rule: BranchRuleSettings, user: User): Promise<boolean> {
    if (!rule.enableMergeWhitelist) return true;
    return this.#listed(repo, user, rule.mergeWhitelistUserIds, rule.mergeWhitelistTeamIds);
  }

  /**
   * Whether a whitelist (people, teams by id) lets `user` act. Invariant: a place on a
   * whitelist never outlasts write access: it is asked again at each use, so someone who lost
   * it since being listed may no longer push, merge or approve by the list.
   */
  async #listed(repo: Repository, user: User, ids: readonly string[], teams: readonly string[]) {
    const named =
      ids.includes(user.id) ||
      (repo.owner.kind === 'org' &&
        (await this.#ports.teamIds.isMemberOfAny(user.id, repo.owner.id, teams)));
    return named && atLeast(await this.#repos.accessOf(user, repo), 'write');
  }
}
