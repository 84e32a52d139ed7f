import { Forbidden, NotFound, Unauthenticated } from '../errors.ts';
import type { TeamIds } from '../orgs/team-ids.ts';
import type { UserService } from '../users/user.service.ts';
import type { User } from '../users/user.types.ts';
import { DEFAULT_RULE_SETTINGS } from './branch-rule.ts';
import { changedRule } from './branch-rule-change.ts';
import { BranchRuleGuard, type BranchRuleGuardPorts } from './branch-rule-guard.ts';
import { checkRuleName, type ProtectionChange } from './branch-rule-input.ts';
import type { ProtectedBranchStore } from './protected-branch.store.ts';
import { mayAdministerRepo } from './repo.policy.ts';
import type { RepoService } from './repo.service.ts';
import type { ProtectedBranchRecord, Repository } from './repo.types.ts';

export { MAX_REQUIRED_CHECKS } from './branch-rule-input.ts';
export type { ProtectionChange };
/** A change to a protection's required checks; what is left out stays as it is. */
export type RequiredCheckChange = ProtectionChange;

/** What the rules read beyond their own rows: people by handle, teams by id, branches. */
export type ProtectedBranchPorts = BranchRuleGuardPorts & {
  readonly users: Pick<UserService, 'findAccount' | 'findManyByIds'>;
  /** Teams by id, as rules keep them. */
  readonly teamIds: Pick<TeamIds, 'idsOf' | 'namesOf' | 'isMemberOfAny'>;
};

/**
 * Protection rules of branches, named by a branch or a glob (`release/*`): no force push or
 * deletion (enforced by git's pre-receive hook on every push), and what a merge waits for
 * (approvals, no rejection, an up-to-date head, checks; see merge-gate.service.ts) and who may
 * merge and approve. What the rules enforce is `BranchRuleGuard`'s; this adds managing them,
 * which only a repository's administrators may.
 */
export class ProtectedBranchService extends BranchRuleGuard {
  readonly #repos: RepoService;
  readonly #store: ProtectedBranchStore;
  readonly #ports: ProtectedBranchPorts;

  constructor(repos: RepoService, store: ProtectedBranchStore, ports: ProtectedBranchPorts) {
    super(repos, store, ports);
    this.#repos = repos;
    this.#store = store;
    this.#ports = ports;
  }

  async names(repo: Repository): Promise<string[]> {
    return this.#store.listNames(repo.id);
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
