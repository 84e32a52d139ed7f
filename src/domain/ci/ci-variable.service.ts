import { assertCiValue, assertRepoCiAdmin, ciName, type RepoCiAccess } from './ci-names.ts';
import type { CiSettingStore, StoredVariable } from './ci-setting.store.ts';
import { deleteRepoCiSetting } from './ci-setting-deletion.ts';

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
    const rows = await this.#store.variablesOfTask(taskId);
    return {
      ...(await this.#org?.variablesForTask(taskId)),
      ...Object.fromEntries(rows.map((row) => [row.name, row.value])),
    };
  }
}

/** Where the variables of a task's organisation come from (`CiOrgSettingsService`). */
type OrgVariables = { variablesForTask(taskId: number): Promise<Record<string, string>> };
