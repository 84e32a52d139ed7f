import type { Db } from '../../db/database.ts';
import { Forbidden, NotFound } from '../errors.ts';
import { assertCiValue, ciName, type RepoCiAccess } from './ci-names.ts';

export type CiVariable = {
  readonly name: string;
  readonly value: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
};

function assertAdmin(access: RepoCiAccess): void {
  if (!access.isRepoAdmin) throw new Forbidden('only repository admins may manage CI variables');
}

/** Per-repository CI variables: plain name/value pairs handed to every job of the repository. */
export class CiVariableService {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Creates or replaces a variable. */
  async put(access: RepoCiAccess, name: string, value: string): Promise<CiVariable> {
    assertAdmin(access);
    const stored = ciName('variable', name);
    assertCiValue('variable', value);
    const now = Date.now();
    const row = await this.#db
      .insertInto('ci_variables')
      .values({ repo_id: access.repoId, name: stored, value, created_at: now, updated_at: now })
      .onConflict((oc) => oc.columns(['repo_id', 'name']).doUpdateSet({ value, updated_at: now }))
      .returning(['name', 'value', 'created_at', 'updated_at'])
      .executeTakeFirstOrThrow();
    return toVariable(row);
  }

  async list(access: RepoCiAccess): Promise<CiVariable[]> {
    assertAdmin(access);
    const rows = await this.#db
      .selectFrom('ci_variables')
      .select(['name', 'value', 'created_at', 'updated_at'])
      .where('repo_id', '=', access.repoId)
      .orderBy('name')
      .execute();
    return rows.map(toVariable);
  }

  async delete(access: RepoCiAccess, name: string): Promise<void> {
    assertAdmin(access);
    const result = await this.#db
      .deleteFrom('ci_variables')
      .where('repo_id', '=', access.repoId)
      .where('name', '=', name.trim().toUpperCase())
      .executeTakeFirst();
    if (result.numDeletedRows === 0n) throw new NotFound('variable does not exist');
  }

  /** The variables of the repository a task belongs to, for delivery to its runner. */
  async variablesForTask(taskId: number): Promise<Record<string, string>> {
    const rows = await this.#db
      .selectFrom('ci_tasks')
      .innerJoin('workflow_runs', 'workflow_runs.id', 'ci_tasks.run_id')
      .innerJoin('ci_variables', 'ci_variables.repo_id', 'workflow_runs.repo_id')
      .select(['ci_variables.name', 'ci_variables.value'])
      .where('ci_tasks.id', '=', taskId)
      .execute();
    return Object.fromEntries(rows.map((row) => [row.name, row.value]));
  }
}

function toVariable(row: {
  name: string;
  value: string;
  created_at: number;
  updated_at: number;
}): CiVariable {
  return {
    name: row.name,
    value: row.value,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}
