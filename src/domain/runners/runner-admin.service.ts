import { randomHex, sha256Hex } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import type { AdminPolicy } from '../admin/admin.policy.ts';
import { Forbidden, Invalid, NotFound } from '../errors.ts';
import type { OrgService } from '../orgs/org.service.ts';
import { mayAdministerOrg } from '../repos/repo.policy.ts';
import type { RegistrationTokenStore } from './registration-token.store.ts';
import { mayManageRunners, type RunnerActor, type ScopeGrants } from './runner.policy.ts';
import type { RunnerStore } from './runner.store.ts';
import type {
  ListedRegistrationToken,
  ListedRunner,
  RegistrationToken,
  RunnerScope,
} from './runner.types.ts';
import { sameScope } from './runner-scope.ts';
import type { ScopeLookupStore } from './scope-lookup.store.ts';

/** What runner administration reads and writes, and who it asks about permissions. */
export type RunnerAdminDeps = {
  readonly tokens: RegistrationTokenStore;
  readonly runners: RunnerStore;
  readonly lookup: ScopeLookupStore;
  readonly admins: AdminPolicy;
  readonly orgs: OrgService;
};

/** 20 random bytes as 40 hex characters. */
const REGISTRATION_TOKEN_BYTES = 20;

/**
 * Runner administration: registration tokens (mint, list, delete) and runners (list, delete),
 * each in a scope the caller may manage. `scope` undefined means every scope at once, which only
 * admins and the operator may use. Things outside the given scope read as missing.
 */
export class RunnerAdminService {
  readonly #tokens: RegistrationTokenStore;
  readonly #runners: RunnerStore;
  readonly #lookup: ScopeLookupStore;
  readonly #admins: AdminPolicy;
  readonly #orgs: OrgService;

  constructor(deps: RunnerAdminDeps) {
    this.#tokens = deps.tokens;
    this.#runners = deps.runners;
    this.#lookup = deps.lookup;
    this.#admins = deps.admins;
    this.#orgs = deps.orgs;
  }

  /**
   * Mints a registration token for `scope` and returns its plaintext, the only time it exists.
   * The token stays reusable until deleted.
   */
  async createToken(
    actor: RunnerActor,
    scope: RunnerScope,
    grants: ScopeGrants = {},
  ): Promise<{ token: string; record: RegistrationToken }> {
    await this.#authorize(actor, scope, grants);
    await this.#assertScopeExists(scope);
    const token = randomHex(REGISTRATION_TOKEN_BYTES);
    const record: RegistrationToken = {
      id: newId(),
      scope,
      createdBy: actor.kind === 'user' ? actor.user.id : null,
      createdAt: new Date(),
      lastUsedAt: null,
    };
    await this.#tokens.insert({ ...record, tokenHash: sha256Hex(token) });
    return { token, record };
  }

  async listTokens(
    actor: RunnerActor,
    scope: RunnerScope | undefined,
    grants: ScopeGrants = {},
  ): Promise<ListedRegistrationToken[]> {
    await this.#authorize(actor, scope, grants);
    return this.#tokens.list(scope);
  }

  /** Deletes a token: no new runner registers with it; runners registered with it keep working. */
  async deleteToken(
    actor: RunnerActor,
    scope: RunnerScope | undefined,
    tokenId: string,
    grants: ScopeGrants = {},
  ): Promise<void> {
    await this.#authorize(actor, scope, grants);
    const found = await this.#tokens.findById(tokenId);
    if (found === undefined || (scope !== undefined && !sameScope(found.scope, scope))) {
      throw new NotFound('registration token does not exist');
    }
    await this.#tokens.delete(found.id);
  }

  async listRunners(
    actor: RunnerActor,
    scope: RunnerScope | undefined,
    grants: ScopeGrants = {},
  ): Promise<ListedRunner[]> {
    await this.#authorize(actor, scope, grants);
    return this.#runners.list(scope, Date.now());
  }

  /** Deletes a runner; its credentials stop working with the next call. */
  async deleteRunner(
    actor: RunnerActor,
    scope: RunnerScope | undefined,
    runnerId: string,
    grants: ScopeGrants = {},
  ): Promise<void> {
    await this.#authorize(actor, scope, grants);
    const found = await this.#runners.findById(runnerId);
    if (found === undefined || (scope !== undefined && !sameScope(found.scope, scope))) {
      throw new NotFound('runner does not exist');
    }
    await this.#runners.delete(found.id);
  }

  /**
   * The scope named on the command line: `repo` as `OWNER/NAME`, `org` as a handle, neither for
   * the instance. Throws `Invalid` for both or a malformed name, `NotFound` for a missing one.
   */
  async resolveScope(names: { repo?: string; org?: string }): Promise<RunnerScope> {
    if (names.repo !== undefined && names.org !== undefined) {
      throw new Invalid('give either a repository or an organisation, not both');
    }
    if (names.repo !== undefined) {
      const [owner, name, ...rest] = names.repo.split('/');
      if (!owner || !name || rest.length > 0) throw new Invalid('repository must be OWNER/NAME');
      const repoId = await this.#lookup.findRepositoryId(owner, name);
      if (repoId === undefined) throw new NotFound(`repository does not exist [${names.repo}]`);
      return { kind: 'repository', repoId };
    }
    if (names.org !== undefined) {
      const org = await this.#orgs.getOrg(names.org);
      return { kind: 'organisation', orgId: org.id };
    }
    return { kind: 'instance' };
  }

  async #authorize(
    actor: RunnerActor,
    scope: RunnerScope | undefined,
    grants: ScopeGrants,
  ): Promise<void> {
    const isAdmin = actor.kind === 'user' && this.#admins.isAdmin(actor.user);
    let effective = grants;
    if (
      actor.kind === 'user' &&
      scope?.kind === 'organisation' &&
      grants.isOrgOwner === undefined
    ) {
      const handle = (await this.#lookup.findOrganisationHandle(scope.orgId)) ?? '';
      effective = {
        ...grants,
        isOrgOwner: mayAdministerOrg(
          await this.#orgs.roleOf(scope.orgId, actor.user.id),
          false,
          this.#admins.isActionOwner(handle),
        ),
      };
    }
    if (!mayManageRunners(actor, isAdmin, scope, effective)) {
      throw new Forbidden('only administrators may manage these runners');
    }
  }

  async #assertScopeExists(scope: RunnerScope): Promise<void> {
    if (scope.kind === 'repository' && !(await this.#lookup.repositoryExists(scope.repoId))) {
      throw new NotFound('repository does not exist');
    }
    if (scope.kind === 'organisation' && !(await this.#lookup.organisationExists(scope.orgId))) {
      throw new NotFound('organisation does not exist');
    }
  }
}
