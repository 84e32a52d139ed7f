import type { RepoPaths } from '../../git/repo-paths.ts';
import { repositorySizeBytes } from '../../git/repo-size.ts';
import { Invalid, NotFound } from '../errors.ts';
import type { Repository } from '../repos/repo.types.ts';
import type { RepoListingService } from '../repos/repo-listing.service.ts';
import { OPERATOR } from '../runners/runner.policy.ts';
import type { RunnerAdminService } from '../runners/runner-admin.service.ts';
import type { UserService } from '../users/user.service.ts';
import { isUser, type PersonRow, type User } from '../users/user.types.ts';
import type { AdminPolicy } from './admin.policy.ts';

/** How many of each thing the instance holds, for the admin overview. */
export type InstanceCounts = {
  readonly people: number;
  readonly orgs: number;
  readonly repos: number;
  readonly runners: number;
};

/** A person in the admin list: disabled or not, and why they administer, if they do. */
export type AdminPersonRow = PersonRow & {
  /** 'listed': named by SERVICE_ADMIN_HANDLES (cannot be unmade here); 'stored': made here. */
  readonly admin: 'listed' | 'stored' | undefined;
};

/** The users aggregate's listing of people and its admin flag, as the admin pages use them. */
export type PeopleDirectory = {
  countPeople(): Promise<number>;
  countOrgs(): Promise<number>;
  listPeoplePage(
    query: string,
    page: { limit: number; offset: number },
  ): Promise<{ items: PersonRow[]; total: number }>;
  setAdmin(id: string, admin: boolean): Promise<void>;
};

export type AdminRepoRow = { readonly repo: Repository; readonly sizeBytes: number | undefined };

type Page = { readonly limit: number; readonly offset: number };

export type SiteAdminDeps = {
  readonly admins: AdminPolicy;
  readonly userStore: PeopleDirectory;
  readonly users: UserService;
  readonly repos: Pick<RepoListingService, 'listAll'>;
  readonly runnerAdmin: Pick<RunnerAdminService, 'listRunners'>;
  readonly paths: RepoPaths;
};

/**
 * What instance administrators do from `/admin`: see counts, list people and repositories,
 * disable and re-enable people, make and unmake administrators. Every method takes the acting
 * person first and answers NotFound to anyone who does not administer the instance, as the
 * admin pages do. Nobody may disable or unmake themselves (an instance must not lose its last
 * way in by a slip), and handles listed in SERVICE_ADMIN_HANDLES stay administrators.
 */
export class SiteAdminService {
  readonly #deps: SiteAdminDeps;

  constructor(deps: SiteAdminDeps) {
    this.#deps = deps;
  }

  /** The acting person, when they administer the instance; NotFound for everyone else. */
  requireAdmin(actor: User | undefined): User {
    if (actor === undefined || !this.#deps.admins.isAdmin(actor)) {
      throw new NotFound('no such page');
    }
    return actor;
  }

  async counts(actor: User | undefined): Promise<InstanceCounts> {
    this.requireAdmin(actor);
    const [people, orgs, repos, runners] = await Promise.all([
      this.#deps.userStore.countPeople(),
      this.#deps.userStore.countOrgs(),
      this.#deps.repos.listAll({ limit: 1, offset: 0 }),
      this.#deps.runnerAdmin.listRunners(OPERATOR, undefined),
    ]);
    return { people, orgs, repos: repos.total, runners: runners.length };
  }

  async listPeople(
    actor: User | undefined,
    query: string,
    page: Page,
  ): Promise<{ items: AdminPersonRow[]; total: number }> {
    this.requireAdmin(actor);
    const { items, total } = await this.#deps.userStore.listPeoplePage(query.trim(), page);
    return { items: items.map((row) => ({ ...row, admin: this.#adminKind(row.account) })), total };
  }

  /** Repositories of every owner, by owner and name, with what each takes on disk. */
  async listRepos(
    actor: User | undefined,
    query: string,
    page: Page,
  ): Promise<{ items: AdminRepoRow[]; total: number }> {
    this.requireAdmin(actor);
    const trimmed = query.trim();
    const { items, total } = await this.#deps.repos.listAll(
      page,
      trimmed ? { query: trimmed } : {},
    );
    const rows = await Promise.all(
      items.map(async (repo) => ({
        repo,
        sizeBytes: await repositorySizeBytes(
          this.#deps.paths.resolve({ owner: repo.owner.handle, name: repo.name }),
        ),
      })),
    );
    return { items: rows, total };
  }

  /** Disables a person (their sign-in, sessions and tokens stop working) or enables them. */
  async setDisabled(actor: User | undefined, handle: string, disabled: boolean): Promise<User> {
    const admin = this.requireAdmin(actor);
    const person = await this.#person(handle);
    if (disabled && person.id === admin.id) throw new Invalid('you cannot disable yourself');
    await this.#deps.users.setDisabled(person, disabled);
    return person;
  }

  /** Makes a person an administrator in the database, or takes that back. */
  async setAdmin(actor: User | undefined, handle: string, admin: boolean): Promise<User> {
    const acting = this.requireAdmin(actor);
    const person = await this.#person(handle);
    if (!admin && this.#deps.admins.isListed(person)) {
      throw new Invalid(`${person.handle} is listed in SERVICE_ADMIN_HANDLES and stays an admin`);
    }
    if (!admin && person.id === acting.id) {
      throw new Invalid('you cannot remove your own administrator rights');
    }
    await this.#deps.userStore.setAdmin(person.id, admin);
    return person;
  }

  #adminKind(account: PersonRow['account']): AdminPersonRow['admin'] {
    if (this.#deps.admins.isListed(account)) return 'listed';
    return account.siteAdmin ? 'stored' : undefined;
  }

  async #person(handle: string): Promise<User> {
    const account = await this.#deps.users.findAccount(handle.trim());
    if (!account || !isUser(account)) throw new NotFound(`user does not exist [name: ${handle}]`);
    return account;
  }
}
