import type { PushRule } from '../../git/push-rules.ts';
import { Forbidden, NotFound, Unauthenticated } from '../errors.ts';
import type { TeamIds } from '../orgs/team-ids.ts';
import type { UserService } from '../users/user.service.ts';
import type { User } from '../users/user.types.ts';
import { hasUnprotectedFiles, pushRulesOf, wantsPushRules } from './branch-push-rules.ts';
import {
  type BranchRuleSettings,
  DEFAULT_RULE_SETTINGS,
  deployKeyMayPushUnder,
  ruleFor,
} from './branch-rule.ts';
import { changedRule } from './branch-rule-change.ts';
import { hookRefsOf } from './branch-rule-hook.ts';
import { checkRuleName, type ProtectionChange } from './branch-rule-input.ts';
import type { ProtectedBranchStore } from './protected-branch.store.ts';
import { mayAdministerRepo, mayWrite } from './repo.policy.ts';
import type { RepoService } from './repo.service.ts';
import {
  atLeast,
  type ProtectedBranchRecord,
  type RepoAccess,
  type Repository,
} from './repo.types.ts';

export { MAX_REQUIRED_CHECKS } from './branch-rule-input.ts';
export type { ProtectionChange };
/** A change to a protection's required checks; what is left out stays as it is. */
export type RequiredCheckChange = ProtectionChange;

/** What the rules read beyond their own rows: people by handle, teams by id, branches. */
export type ProtectedBranchPorts = {
  readonly users: Pick<UserService, 'findAccount' | 'findManyByIds'>;
  /** Teams by id, as rules keep them. */
  readonly teamIds: Pick<TeamIds, 'idsOf' | 'namesOf' | 'isMemberOfAny'>;
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
 * Protection rules of branches, named by a branch or a glob (`release/*`): no force push or
 * deletion (enforced by git's pre-receive hook on every push), and what a merge waits for
 * (approvals, no rejection, an up-to-date head, checks; see merge-gate.service.ts) and who may
 * merge and approve.
 */
export class ProtectedBranchService {
  readonly #repos: RepoService;
  readonly #store: ProtectedBranchStore;
  readonly #ports: ProtectedBranchPorts;

  constructor(repos: RepoService, store: ProtectedBranchStore, ports: ProtectedBranchPorts) {
    this.#repos = repos;
    this.#store = store;
    this.#ports = ports;
  }

  async names(repo: Repository): Promise<string[]> {
    return this.#store.listNames(repo.id);
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

  async protect(actor: User, owner: string, name: string, branch: string): Promise<void> {
    const { repo } = await this.#repos.require(actor, owner, name, 'admin');
    await this.#store.add(repo.id, checkRuleName(branch));
  }

  async unprotect(actor: User, owner: string, name: string, branch: string): Promise<void> {
    const { repo } = await this.#repos.require(actor, owner, name, 'admin');
    await this.#store.remove(repo.id, branch);
  }

  /** Every protection of a repository; for its admins only. */
  async list(viewer: User | undefined, owner: string, name: string) {
    const repo = await this.#adminRepo(viewer, owner, name);
    return this.#store.listRecords(repo.id);
  }

  /** One protection; NotFound when no rule has this name. */
  async get(viewer: User | undefined, owner: string, name: string, rule: string) {
    const repo = await this.#adminRepo(viewer, owner, name);
    return this.#find(repo, rule);
  }

  /**
   * Adds a rule (its branches need not exist yet). A second rule of the same name is refused
   * with Forbidden: Gitea answers 403 here, not 409.
   */
  async create(
    viewer: User | undefined,
    owner: string,
    name: string,
    rule: string,
    change: ProtectionChange = {},
  ) {
    const repo = await this.#adminRepo(viewer, owner, name);
    const clean = checkRuleName(rule);
    const base = { enableStatusCheck: false, statusCheckContexts: [], ...DEFAULT_RULE_SETTINGS };
    const stored = await changedRule(repo, base, change, this.#ports);
    if (!(await this.#store.add(repo.id, clean, stored))) {
      throw new Forbidden('Branch protection already exist');
    }
    return this.#find(repo, clean);
  }

  /** Changes a rule (Gitea's PATCH); NotFound when there is none of that name. */
  async edit(
    viewer: User | undefined,
    owner: string,
    name: string,
    rule: string,
    change: ProtectionChange,
  ): Promise<ProtectedBranchRecord> {
    const repo = await this.#adminRepo(viewer, owner, name);
    const current = await this.#find(repo, rule);
    const stored = await changedRule(repo, current, change, this.#ports);
    if (!(await this.#store.setRule(repo.id, current.branch, stored))) throw notProtected(rule);
    return this.#find(repo, current.branch);
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

  /** The present handles of the people and names of the teams rules list, by id. */
  async handlesOf(records: readonly ProtectedBranchRecord[]): Promise<Map<string, string>> {
    const ids = records.flatMap((r) => [
      ...r.pushWhitelistUserIds,
      ...r.mergeWhitelistUserIds,
      ...r.approvalsWhitelistUserIds,
    ]);
    const teamIds = records.flatMap((r) => [
      ...r.pushWhitelistTeamIds,
      ...r.mergeWhitelistTeamIds,
      ...r.approvalsWhitelistTeamIds,
    ]);
    const [accounts, teams] = await Promise.all([
      this.#ports.users.findManyByIds([...new Set(ids)]),
      this.#ports.teamIds.namesOf([...new Set(teamIds)]),
    ]);
    return new Map([...[...accounts].map(([id, a]) => [id, a.handle] as const), ...teams]);
  }

  /** Lifts a protection; NotFound when there was no rule of that name. */
  async delete(viewer: User | undefined, owner: string, name: string, rule: string) {
    const repo = await this.#adminRepo(viewer, owner, name);
    if (!(await this.#store.remove(repo.id, rule))) throw notProtected(rule);
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

  async #find(repo: Repository, rule: string): Promise<ProtectedBranchRecord> {
    const records = await this.#store.listRecords(repo.id);
    const record = records.find((entry) => entry.branch === rule);
    if (!record) throw notProtected(rule);
    return record;
  }

  /**
   * The repository, when the viewer administers it. As in Gitea, one who may not see it gets
   * NotFound, an anonymous caller Unauthenticated, and any other non-admin Forbidden.
   */
  async #adminRepo(viewer: User | undefined, owner: string, name: string): Promise<Repository> {
    const visible = await this.#repos.get(viewer, owner, name);
    if (!viewer) throw new Unauthenticated('token is required');
    if (!mayAdministerRepo(visible.access)) {
      throw new Forbidden('you need admin access to manage branch protections');
    }
    return visible.repo;
  }
}

function notProtected(branch: string): NotFound {
  return new NotFound(`branch protection does not exist [name: ${branch}]`);
}
