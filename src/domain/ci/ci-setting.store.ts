import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.ts';
import type { CiSettingKind } from './ci-names.ts';

/** A stored secret: its sealed value and when it was set. */
export type StoredSecret = {
  readonly repoId: string;
  readonly name: string;
  readonly sealedValue: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
};

/** A stored CI variable, in plain text. */
export type StoredVariable = {
  readonly name: string;
  readonly value: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
};

const at = (ms: number) => new Date(Number(ms));

/** Where each kind lives; both tables are keyed by (repo_id, name). */
const SETTING_TABLES = { secret: 'ci_secrets', variable: 'ci_variables' } as const;

/**
 * Queries over a repository's CI settings: `ci_secrets` (values sealed by the caller; this store
 * never sees plain text) and `ci_variables`. A task reads those of its run's repository.
 */
export class CiSettingStore {
  readonly #db: Kysely<Tables>;

  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /**
   * Inserts or replaces a secret; `createdAt` stays that of the first write. `created` tells the
   * two apart (Gitea answers 201 or 204): the insert is tried first, so of two writers racing on
   * a new name exactly one hears that it created it.
   */
  async putSecret(repoId: string, name: string, sealedValue: string, now: number) {
    const inserted = await this.#db
      .insertInto('ci_secrets')
      .values({
        repo_id: repoId,
        name,
        encrypted_value: sealedValue,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.columns(['repo_id', 'name']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return { secret: toSecret(inserted), created: true };
    const row = await this.#db
      .updateTable('ci_secrets')
      .set({ encrypted_value: sealedValue, updated_at: now })
      .where('repo_id', '=', repoId)
      .where('name', '=', name)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { secret: toSecret(row), created: false };
  }

  async listSecrets(repoId: string): Promise<StoredSecret[]> {
    const rows = await this.#db
      .selectFrom('ci_secrets')
      .selectAll()
      .where('repo_id', '=', repoId)
      .orderBy('name')
      .execute();
    return rows.map(toSecret);
  }

  /** Whether a secret or variable of that (stored) name was deleted. */
  async deleteSetting(kind: CiSettingKind, repoId: string, name: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom(SETTING_TABLES[kind])
      .where('repo_id', '=', repoId)
      .where('name', '=', name)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** The secrets of the repository a task's run belongs to. */
  async secretsOfTask(taskId: number): Promise<StoredSecret[]> {
    const rows = await this.#db
      .selectFrom('ci_tasks')
      .innerJoin('workflow_runs', 'workflow_runs.id', 'ci_tasks.run_id')
      .innerJoin('ci_secrets', 'ci_secrets.repo_id', 'workflow_runs.repo_id')
      .selectAll('ci_secrets')
      .where('ci_tasks.id', '=', taskId)
      .execute();
    return rows.map(toSecret);
  }

  /** Inserts or replaces a variable; `createdAt` stays that of the first write. */
  async putVariable(repoId: string, name: string, value: string, now: number) {
    const row = await this.#db
      .insertInto('ci_variables')
      .values({ repo_id: repoId, name, value, created_at: now, updated_at: now })
      .onConflict((oc) => oc.columns(['repo_id', 'name']).doUpdateSet({ value, updated_at: now }))
      .returningAll()
      .executeTakeFirstOrThrow();
    return toVariable(row);
  }

  async listVariables(repoId: string): Promise<StoredVariable[]> {
    const rows = await this.#db
      .selectFrom('ci_variables')
      .selectAll()
      .where('repo_id', '=', repoId)
      .orderBy('name')
      .execute();
    return rows.map(toVariable);
  }

  /** Inserts a variable unless one of that name exists; answers whether it did. */
  async insertVariable(repoId: string, name: string, value: string, now: number) {
    const row = await this.#db
      .insertInto('ci_variables')
      .values({ repo_id: repoId, name, value, created_at: now, updated_at: now })
      .onConflict((oc) => oc.columns(['repo_id', 'name']).doNothing())
      .returning('name')
      .executeTakeFirst();
    return row !== undefined;
  }

  async getVariable(repoId: string, name: string): Promise<StoredVariable | undefined> {
    const row = await this.#db
      .selectFrom('ci_variables')
      .selectAll()
      .where('repo_id', '=', repoId)
      .where('name', '=', name)
      .executeTakeFirst();
    return row && toVariable(row);
  }

  /** Sets a variable's name and value; answers whether there was one named `current`. */
  async updateVariable(
    repoId: string,
    current: string,
    next: { readonly name: string; readonly value: string },
    now: number,
  ): Promise<boolean> {
    const result = await this.#db
      .updateTable('ci_variables')
      .set({ name: next.name, value: next.value, updated_at: now })
      .where('repo_id', '=', repoId)
      .where('name', '=', current)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** The variables of the repository a task's run belongs to. */
  async variablesOfTask(taskId: number): Promise<StoredVariable[]> {
    const rows = await this.#db
      .selectFrom('ci_tasks')
      .innerJoin('workflow_runs', 'workflow_runs.id', 'ci_tasks.run_id')
      .innerJoin('ci_variables', 'ci_variables.repo_id', 'workflow_runs.repo_id')
      .selectAll('ci_variables')
      .where('ci_tasks.id', '=', taskId)
      .execute();
    return rows.map(toVariable);
  }
}

function toSecret(row: {
  repo_id: string;
  name: string;
  encrypted_value: string;
  created_at: number;
  updated_at: number;
}): StoredSecret {
  return {
    repoId: row.repo_id,
    name: row.name,
    sealedValue: row.encrypted_value,
    createdAt: at(row.created_at),
    updatedAt: at(row.updated_at),
  };
}

function toVariable(row: {
  name: string;
  value: string;
  created_at: number;
  updated_at: number;
}): StoredVariable {
  return {
    name: row.name,
    value: row.value,
    createdAt: at(row.created_at),
    updatedAt: at(row.updated_at),
  };
}
