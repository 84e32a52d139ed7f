import { Invalid } from '../errors.ts';
import {
  assertCiValue,
  assertRepoCiAdmin,
  ciName,
  maskableSecret,
  type RepoCiAccess,
} from './ci-names.ts';
import type { CiSettingStore, StoredSecret } from './ci-setting.store.ts';
import { deleteRepoCiSetting } from './ci-setting-deletion.ts';
import { deriveSecretKey, openSecret, SecretBoxError, sealSecret } from './secret-box.ts';

/** A secret as listed: its value is never shown again after it is set. */
export type CiSecretInfo = {
  readonly name: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
};

/** Binds a sealed value to its row, so it cannot be moved to another repository or name. */
function sealContext(repoId: string, name: string): string {
  return `ci-secret\u0000${repoId}\u0000${name}`;
}

/**
 * Per-repository CI secrets, encrypted at rest with AES-256-GCM under a key derived from
 * SERVICE_SECRET_KEY. Without that key no secret can be created and none is ever delivered
 * (SPEC.md, Authentication rule 3).
 */
export class CiSecretService {
  readonly #store: CiSettingStore;
  readonly #key: Buffer | undefined;
  readonly #org: OrgSecrets | undefined;

  /** `org`: the secrets of the organisation owning a task's repository, which the repository's override. */
  constructor(store: CiSettingStore, secretKey: string | undefined, org?: OrgSecrets) {
    this.#store = store;
    this.#key = secretKey === undefined ? undefined : deriveSecretKey(secretKey);
    this.#org = org;
  }

  /** Whether secrets can be stored and delivered (SERVICE_SECRET_KEY is set). */
  get enabled(): boolean {
    return this.#key !== undefined;
  }

  /**
   * Creates or replaces a secret, saying which it did. Throws `Invalid` when SERVICE_SECRET_KEY
   * is not set.
   */
  async put(
    access: RepoCiAccess,
    name: string,
    value: string,
  ): Promise<CiSecretInfo & { readonly created: boolean }> {
    assertRepoCiAdmin(access, 'secret');
    const key = this.#key;
    if (key === undefined) {
      throw new Invalid('CI secrets need SERVICE_SECRET_KEY to be set on the server');
    }
    const stored = ciName('secret', name);
    assertCiValue('secret', value);
    const now = Date.now();
    const sealed = sealSecret(key, value, sealContext(access.repoId, stored));
    const { secret, created } = await this.#store.putSecret(access.repoId, stored, sealed, now);
    return { ...toInfo(secret), created };
  }

  /** Names and times of the repository's secrets, by name. Values are never returned. */
  async list(access: RepoCiAccess): Promise<CiSecretInfo[]> {
    assertRepoCiAdmin(access, 'secret');
    const rows = await this.#store.listSecrets(access.repoId);
    return rows.map(toInfo);
  }

  /** Deletes a secret. Throws `NotFound` when the repository has none of that name. */
  delete(access: RepoCiAccess, name: string): Promise<void> {
    return deleteRepoCiSetting(this.#store, 'secret', access, name);
  }

  /**
   * The decrypted secrets of the repository a task belongs to, over those of its organisation
   * (a repository secret wins over an organisation one of the same name), for delivery to the
   * runner that claimed it and for masking its log. Empty when SERVICE_SECRET_KEY is unset. A value that no longer opens (sealed
   * under an earlier key) is left out rather than failing the job, and so is one too short to
   * mask (`maskableSecret`), stored before such values were refused.
   */
  async secretsForTask(taskId: number): Promise<Record<string, string>> {
    const key = this.#key;
    if (key === undefined) return {};
    const rows = await this.#store.secretsOfTask(taskId);
    const secrets: Record<string, string> = { ...(await this.#org?.secretsForTask(taskId)) };
    for (const row of rows) {
      try {
        const value = openSecret(key, row.sealedValue, sealContext(row.repoId, row.name));
        // One stored before short secrets were refused does not shadow the organisation's.
        if (maskableSecret(value)) secrets[row.name] = value;
      } catch (error) {
        if (!(error instanceof SecretBoxError)) throw error;
      }
    }
    return secrets;
  }
}

/** Where the secrets of a task's organisation come from (`CiOrgSettingsService`). */
type OrgSecrets = { secretsForTask(taskId: number): Promise<Record<string, string>> };

function toInfo(secret: StoredSecret): CiSecretInfo {
  return { name: secret.name, createdAt: secret.createdAt, updatedAt: secret.updatedAt };
}
