import type { AdminPolicy } from '../admin/admin.policy.ts';
import { Conflict, Forbidden, Invalid, NotFound } from '../errors.ts';
import type { OrgService } from '../orgs/org.service.ts';
import type { User } from '../users/user.types.ts';
import { assertCiValue, ciName, maskableSecret, storedCiName } from './ci-names.ts';
import type {
  CiOrgSettingStore,
  OrgSettingKind,
  StoredOrgSetting,
} from './ci-org-setting.store.ts';
import { type CiVariableChange, changeCiVariable } from './ci-variable-change.ts';
import { deriveSecretKey, openSecret, SecretBoxError, sealSecret } from './secret-box.ts';

/** An organisation whose CI settings the caller may manage (`CiOrgSettingsService.owned`). */
export type OrgCiAccess = { readonly orgId: string };

/** An organisation's setting as listed; a secret's value is never shown again. */
export type OrgSettingInfo = Omit<StoredOrgSetting, 'value'> & { readonly value?: string };

/** Binds a sealed value to its organisation and name, so it cannot be moved to another. */
function sealContext(orgId: string, name: string): string {
  return `ci-org-secret\u0000${orgId}\u0000${name}`;
}

/**
 * Organisation-wide CI secrets and variables, managed by the organisation's owners (and site
 * admins): everyone else gets 404 when not a member (the organisation's settings are not theirs
 * to learn of) and 403 as a member, as Gitea answers. Every job of the organisation's
 * repositories receives them; a repository's own setting of the same name wins (the repository
 * services merge them, see `secretsForTask`). Secret values are sealed with AES-256-GCM under
 * SERVICE_SECRET_KEY, as repository secrets are.
 */
export class CiOrgSettingsService {
  readonly #store: CiOrgSettingStore;
  readonly #orgs: OrgService;
  readonly #admins: AdminPolicy;
  readonly #key: Buffer | undefined;

  constructor(deps: {
    store: CiOrgSettingStore;
    orgs: OrgService;
    admins: AdminPolicy;
    secretKey: string | undefined;
  }) {
    this.#store = deps.store;
    this.#orgs = deps.orgs;
    this.#admins = deps.admins;
    this.#key = deps.secretKey === undefined ? undefined : deriveSecretKey(deps.secretKey);
  }

  /** The organisation, if `actor` owns it. Throws `NotFound` for outsiders, `Forbidden` for members. */
  async owned(actor: User | undefined, org: string): Promise<OrgCiAccess> {
    const account = await this.#orgs.getOrg(org);
    const hidden = new NotFound(`org does not exist [name: ${org}]`);
    if (actor === undefined) throw hidden;
    if (this.#admins.isAdmin(actor)) return { orgId: account.id };
    const role = await this.#orgs.roleOf(account.id, actor.id);
    if (role === undefined) throw hidden;
    if (role !== 'owner') throw new Forbidden('only organisation owners may manage CI settings');
    // An action owner's jobs are the administrators' alone (repo.policy.ts, mayAdministerOrg).
    if (this.#admins.isActionOwner(account.handle)) {
      throw new Forbidden('only administrators may manage CI settings of an action owner');
    }
    return { orgId: account.id };
  }

  /** Creates or replaces a secret; answers whether it was new. */
  async putSecret(access: OrgCiAccess, name: string, value: string): Promise<boolean> {
    const key = this.#key;
    if (key === undefined) {
      throw new Invalid('CI secrets need SERVICE_SECRET_KEY to be set on the server');
    }
    const stored = ciName('secret', name);
    assertCiValue('secret', value);
    const sealed = sealSecret(key, value, sealContext(access.orgId, stored));
    return this.#store.put('secret', access.orgId, stored, sealed, Date.now());
  }

  /** Creates a variable. Throws `Conflict` when one of that name exists. */
  async createVariable(access: OrgCiAccess, name: string, value: string): Promise<void> {
    const stored = ciName('variable', name);
    assertCiValue('variable', value);
    if (!(await this.#store.insert('variable', access.orgId, stored, value, Date.now()))) {
      throw new Conflict('variable name already exists');
    }
  }

  /** Changes a variable's value, and its name when `rename` is given (`changeCiVariable`). */
  async updateVariable(access: OrgCiAccess, name: string, change: CiVariableChange): Promise<void> {
    const { orgId } = access;
    await changeCiVariable(
      {
        exists: async (next) => (await this.#store.get('variable', orgId, next)) !== undefined,
        update: (current, next) => this.#store.update('variable', orgId, current, next, Date.now()),
      },
      name,
      change,
    );
  }

  /** One variable with its value. */
  async getVariable(access: OrgCiAccess, name: string): Promise<StoredOrgSetting> {
    const found = await this.#store.get('variable', access.orgId, storedCiName(name));
    if (found === undefined) throw new NotFound('variable does not exist');
    return found;
  }

  /** Secrets without their values, or variables with theirs, by name. */
  async list(access: OrgCiAccess, kind: OrgSettingKind): Promise<OrgSettingInfo[]> {
    const rows = await this.#store.list(kind, access.orgId);
    return kind === 'secret' ? rows.map(({ value: _sealed, ...info }) => info) : rows;
  }

  /** Deletes a secret or variable; answers what was deleted. Throws `NotFound` when none. */
  async delete(access: OrgCiAccess, kind: OrgSettingKind, name: string): Promise<OrgSettingInfo> {
    const found = await this.#store.get(kind, access.orgId, storedCiName(name));
    if (found === undefined || !(await this.#store.delete(kind, access.orgId, found.name))) {
      throw new NotFound(`${kind} does not exist`);
    }
    if (kind === 'variable') return found;
    const { value: _sealed, ...info } = found;
    return info;
  }

  /**
   * The decrypted secrets of the organisation owning a task's repository. Empty without
   * SERVICE_SECRET_KEY; a value sealed under an earlier key is left out, and so is one too short
   * to mask (`maskableSecret`), stored before such values were refused.
   */
  async secretsForTask(taskId: number): Promise<Record<string, string>> {
    const key = this.#key;
    if (key === undefined) return {};
    const secrets: Record<string, string> = {};
    for (const row of await this.#store.ofTask('secret', taskId)) {
      try {
        const value = openSecret(key, row.value, sealContext(row.orgId, row.name));
        if (maskableSecret(value)) secrets[row.name] = value;
      } catch (error) {
        if (!(error instanceof SecretBoxError)) throw error;
      }
    }
    return secrets;
  }

  /** The variables of the organisation owning a task's repository. */
  async variablesForTask(taskId: number): Promise<Record<string, string>> {
    const rows = await this.#store.ofTask('variable', taskId);
    return Object.fromEntries(rows.map((row) => [row.name, row.value]));
  }

  /** The variables of an organisation (none for a person's id). */
  async variablesForOrg(orgId: string): Promise<Record<string, string>> {
    const rows = await this.#store.list('variable', orgId);
    return Object.fromEntries(rows.map((row) => [row.name, row.value]));
  }
}
