import type { Db } from '../../db/database.ts';
import { Forbidden, Invalid, NotFound } from '../errors.ts';
import { assertCiValue, ciName, type RepoCiAccess } from './ci-names.ts';
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

function assertAdmin(access: RepoCiAccess): void {
  if (!access.isRepoAdmin) throw new Forbidden('only repository admins may manage CI secrets');
}

/**
 * Per-repository CI secrets, encrypted at rest with AES-256-GCM under a key derived from
 * SERVICE_SECRET_KEY. Without that key no secret can be created and none is ever delivered
 * (SPEC.md, Authentication rule 3).
 */
export class CiSecretService {
  readonly #db: Db;
  readonly #key: Buffer | undefined;

  constructor(db: Db, secretKey: string | undefined) {
    this.#db = db;
    this.#key = secretKey === undefined ? undefined : deriveSecretKey(secretKey);
  }

  /** Whether secrets can be stored and delivered (SERVICE_SECRET_KEY is set). */
  get enabled(): boolean {
    return this.#key !== undefined;
  }

  /** Creates or replaces a secret. Throws `Invalid` when SERVICE_SECRET_KEY is not set. */
  async put(access: RepoCiAccess, name: string, value: string): Promise<CiSecretInfo> {
    assertAdmin(access);
    const key = this.#key;
    if (key === undefined) {
      throw new Invalid('CI secrets need SERVICE_SECRET_KEY to be set on the server');
    }
    const stored = ciName('secret', name);
    assertCiValue('secret', value);
    const now = Date.now();
    const sealed = sealSecret(key, value, sealContext(access.repoId, stored));
    const row = await this.#db
      .insertInto('ci_secrets')
      .values({
        repo_id: access.repoId,
        name: stored,
        encrypted_value: sealed,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) =>
        oc.columns(['repo_id', 'name']).doUpdateSet({ encrypted_value: sealed, updated_at: now }),
      )
      .returning(['name', 'created_at', 'updated_at'])
      .executeTakeFirstOrThrow();
    return toInfo(row);
  }

  /** Names and times of the repository's secrets, by name. Values are never returned. */
  async list(access: RepoCiAccess): Promise<CiSecretInfo[]> {
    assertAdmin(access);
    const rows = await this.#db
      .selectFrom('ci_secrets')
      .select(['name', 'created_at', 'updated_at'])
      .where('repo_id', '=', access.repoId)
      .orderBy('name')
      .execute();
    return rows.map(toInfo);
  }

  async delete(access: RepoCiAccess, name: string): Promise<void> {
    assertAdmin(access);
    const result = await this.#db
      .deleteFrom('ci_secrets')
      .where('repo_id', '=', access.repoId)
      .where('name', '=', name.trim().toUpperCase())
      .executeTakeFirst();
    if (result.numDeletedRows === 0n) throw new NotFound('secret does not exist');
  }

  /**
   * The decrypted secrets of the repository a task belongs to, for delivery to the runner that
   * claimed it. Empty when SERVICE_SECRET_KEY is unset. A value that no longer opens (sealed
   * under an earlier key) is left out rather than failing the job.
   */
  async secretsForTask(taskId: number): Promise<Record<string, string>> {
    const key = this.#key;
    if (key === undefined) return {};
    const rows = await this.#db
      .selectFrom('ci_tasks')
      .innerJoin('workflow_runs', 'workflow_runs.id', 'ci_tasks.run_id')
      .innerJoin('ci_secrets', 'ci_secrets.repo_id', 'workflow_runs.repo_id')
      .select(['ci_secrets.repo_id', 'ci_secrets.name', 'ci_secrets.encrypted_value'])
      .where('ci_tasks.id', '=', taskId)
      .execute();
    const secrets: Record<string, string> = {};
    for (const row of rows) {
      try {
        secrets[row.name] = openSecret(
          key,
          row.encrypted_value,
          sealContext(row.repo_id, row.name),
        );
      } catch (error) {
        if (!(error instanceof SecretBoxError)) throw error;
      }
    }
    return secrets;
  }
}

function toInfo(row: { name: string; created_at: number; updated_at: number }): CiSecretInfo {
  return {
    name: row.name,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}
