import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.ts';
import type { CiSettingKind } from './ci-names.ts';

/** An organisation's secret or variable row: `value` is sealed for secrets, plain for variables. */
export type StoredOrgSetting = {
  readonly orgId: string;
  readonly name: string;
  readonly value: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
};

/** Which of an organisation's CI settings: its secrets or its variables. */
export type OrgSettingKind = CiSettingKind;

/**
 * Queries over an organisation's CI settings, `ci_org_secrets` (values sealed by the caller; this
 * store never sees plain text) and `ci_org_variables`, which have the same shape. A task reads
 * those of the organisation owning its run's repository.
 */
export class CiOrgSettingStore {
  readonly #db: Kysely<Tables>;

  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /** Inserts or replaces a setting; answers whether it was new. */
  async put(kind: OrgSettingKind, orgId: string, name: string, value: string, now: number) {
    const existed = (await this.get(kind, orgId, name)) !== undefined;
    await this.#db
      .insertInto(tableOf(kind))
      .values({ org_id: orgId, name, value, created_at: now, updated_at: now })
      .onConflict((oc) => oc.columns(['org_id', 'name']).doUpdateSet({ value, updated_at: now }))
      .execute();
    return !existed;
  }

  /** Inserts a setting unless one of that name exists; answers whether it did. */
  async insert(kind: OrgSettingKind, orgId: string, name: string, value: string, now: number) {
    const rows = await this.#db
      .insertInto(tableOf(kind))
      .values({ org_id: orgId, name, value, created_at: now, updated_at: now })
      .onConflict((oc) => oc.columns(['org_id', 'name']).doNothing())
      .returning('name')
      .execute();
    return rows.length > 0;
  }

  /** Changes the value and name of a setting; answers whether there was one. */
  async update(
    kind: OrgSettingKind,
    orgId: string,
    name: string,
    next: { readonly name: string; readonly value: string },
    now: number,
  ): Promise<boolean> {
    const result = await this.#db
      .updateTable(tableOf(kind))
      .set({ name: next.name, value: next.value, updated_at: now })
      .where('org_id', '=', orgId)
      .where('name', '=', name)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async get(
    kind: OrgSettingKind,
    orgId: string,
    name: string,
  ): Promise<StoredOrgSetting | undefined> {
    const row = await this.#db
      .selectFrom(tableOf(kind))
      .selectAll()
      .where('org_id', '=', orgId)
      .where('name', '=', name)
      .executeTakeFirst();
    return row && toSetting(row);
  }

  async list(kind: OrgSettingKind, orgId: string): Promise<StoredOrgSetting[]> {
    const rows = await this.#db
      .selectFrom(tableOf(kind))
      .selectAll()
      .where('org_id', '=', orgId)
      .orderBy('name')
      .execute();
    return rows.map(toSetting);
  }

  /** Whether a setting was deleted. */
  async delete(kind: OrgSettingKind, orgId: string, name: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom(tableOf(kind))
      .where('org_id', '=', orgId)
      .where('name', '=', name)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** The settings of the organisation owning the repository of a task's run (none for a user). */
  async ofTask(kind: OrgSettingKind, taskId: number): Promise<StoredOrgSetting[]> {
    const rows = await this.#db
      .selectFrom('ci_tasks')
      .innerJoin('workflow_runs', 'workflow_runs.id', 'ci_tasks.run_id')
      .innerJoin('repositories', 'repositories.id', 'workflow_runs.repo_id')
      .innerJoin(`${tableOf(kind)} as setting`, 'setting.org_id', 'repositories.owner_id')
      .selectAll('setting')
      .where('ci_tasks.id', '=', taskId)
      .execute();
    return rows.map(toSetting);
  }
}

function tableOf(kind: OrgSettingKind): 'ci_org_secrets' | 'ci_org_variables' {
  return kind === 'secret' ? 'ci_org_secrets' : 'ci_org_variables';
}

function toSetting(row: {
  org_id: string;
  name: string;
  value: string;
  created_at: number;
  updated_at: number;
}): StoredOrgSetting {
  return {
    orgId: row.org_id,
    name: row.name,
    value: row.value,
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
  };
}
