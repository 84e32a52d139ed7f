import { Conflict, NotFound } from '../errors.ts';
import {
  assertCiValue,
  assertRepoCiAdmin,
  ciName,
  type RepoCiAccess,
  storedCiName,
} from './ci-names.ts';
import type { CiSettingStore, StoredVariable } from './ci-setting.store.ts';
import { deleteRepoCiSetting } from './ci-setting-deletion.ts';
import { type CiVariableChange, changeCiVariable } from './ci-variable-change.ts';

export type CiVariable = StoredVariable;

/** Per-repository CI variables: plain name/value pairs handed to every job of the repository. */
export class CiVariableService {
  readonly #store: CiSettingStore;
  readonly #org: OrgVariables | undefined;

  /** `org`: the variables of the organisation owning a task's repository. */
  constructor(store: CiSettingStore, org?: OrgVariables) {
    this.#store = store;
    this.#org = org;
  }

  /** Creates or replaces a variable. */
  async put(access: RepoCiAccess, name: string, value: string): Promise<CiVariable> {
    assertRepoCiAdmin(access, 'variable');
    const stored = ciName('variable', name);
    assertCiValue('variable', value);
    const now = Date.now();
    return this.#store.putVariable(access.repoId, stored, value, now);
  }

  /** Creates a variable. Throws `Conflict` when one of that name exists (Gitea's 409). */
  async create(access: RepoCiAccess, name: string, value: string): Promise<void> {
    assertRepoCiAdmin(access, 'variable');
    const stored = ciName('variable', name);
    assertCiValue('variable', value);
    if (!(await this.#store.insertVariable(access.repoId, stored, value, Date.now()))) {
      throw new Conflict('variable name already exists');
    }
  }

  /** Changes a variable's value, and its name when `rename` is given (`changeCiVariable`). */
  async update(access: RepoCiAccess, name: string, change: CiVariableChange): Promise<void> {
    assertRepoCiAdmin(access, 'variable');
    const { repoId } = access;
    await changeCiVariable(
      {
        exists: async (next) => (await this.#store.getVariable(repoId, next)) !== undefined,
        update: (current, next) => this.#store.updateVariable(repoId, current, next, Date.now()),
      },
      name,
      change,
    );
  }

  /** One variable with its value. Throws `NotFound` when there is none of that name. */
  async get(access: RepoCiAccess, name: string): Promise<CiVariable> {
    assertRepoCiAdmin(access, 'variable');
    const found = await this.#store.getVariable(access.repoId, storedCiName(name));
    if (found === undefined) throw new NotFound('variable does not exist');
    return found;
  }

  async list(access: RepoCiAccess): Promise<CiVariable[]> {
    assertRepoCiAdmin(access, 'variable');
    return this.#store.listVariables(access.repoId);
  }

  /** Deletes a variable. Throws `NotFound` when the repository has none of that name. */
  delete(access: RepoCiAccess, name: string): Promise<void> {
    return deleteRepoCiSetting(this.#store, 'variable', access, name);
  }

  /**
   * The variables of the repository a task belongs to over those of its organisation (the
   * repository's win), for delivery to its runner.
   */
  async variablesForTask(taskId: number): Promise<Record<string, string>> {
    return overOrg(
      await this.#org?.variablesForTask(taskId),
      await this.#store.variablesOfTask(taskId),
    );
  }

  /**
   * The same for a repository before it has a task: what `${{ vars.* }}` reads where the server
   * evaluates it when a run starts (`concurrency`). `ownerId` finds the organisation's.
   */
  async variablesForRepo(repoId: string, ownerId: string): Promise<Record<string, string>> {
    return overOrg(
      await this.#org?.variablesForOrg(ownerId),
      await this.#store.listVariables(repoId),
    );
  }
}

/** Where the variables of a task's organisation come from (`CiOrgSettingsService`). */
type OrgVariables = {
  variablesForTask(taskId: number): Promise<Record<string, string>>;
  variablesForOrg(orgId: string): Promise<Record<string, string>>;
};

/** A repository's variables over its organisation's: the repository's win. */
function overOrg(
  org: Readonly<Record<string, string>> | undefined,
  repo: readonly CiVariable[],
): Record<string, string> {
  return { ...org, ...Object.fromEntries(repo.map((row) => [row.name, row.value])) };
}
