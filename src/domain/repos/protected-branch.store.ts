import type { Db } from '../../db/database.ts';
import { type BranchRuleSettings, parseRuleSettings } from './branch-rule.ts';
import type { ProtectedBranchRecord, RequiredCheckRule } from './repo.types.ts';

/** Everything a protection sets beyond its name. */
export type StoredRule = RequiredCheckRule & BranchRuleSettings;

/** The `protected_branches` rows: branch names, per repository, that refuse force and deletion. */
export class ProtectedBranchStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async listNames(repoId: string): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('protected_branches')
      .select('branch')
      .where('repo_id', '=', repoId)
      .orderBy('branch')
      .execute();
    return rows.map((row) => row.branch);
  }

  /** Protected branches with the time each was protected and its required checks, by name. */
  async listRecords(repoId: string): Promise<ProtectedBranchRecord[]> {
    const rows = await this.#db
      .selectFrom('protected_branches')
      .select([
        'branch',
        'created_at',
        'updated_at',
        'enable_status_check',
        'status_check_contexts',
        'settings',
      ])
      .where('repo_id', '=', repoId)
      .orderBy('branch')
      .execute();
    return rows.map((row) => ({
      branch: row.branch,
      createdAt: new Date(Number(row.created_at)),
      updatedAt: new Date(Number(row.updated_at ?? row.created_at)),
      ...parseRuleSettings(row.settings),
      ...ruleOf(row),
    }));
  }

  /** The required checks of one branch's protection; undefined when it is not protected. */
  async ruleOf(repoId: string, branch: string): Promise<RequiredCheckRule | undefined> {
    const row = await this.#db
      .selectFrom('protected_branches')
      .select(['enable_status_check', 'status_check_contexts'])
      .where('repo_id', '=', repoId)
      .where('branch', '=', branch)
      .executeTakeFirst();
    return row && ruleOf(row);
  }

  /** Sets a protection's rules; answers whether the branch is protected. */
  async setRule(repoId: string, branch: string, rule: StoredRule): Promise<boolean> {
    const result = await this.#db
      .updateTable('protected_branches')
      .set(columnsOf(rule))
      .where('repo_id', '=', repoId)
      .where('branch', '=', branch)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Whether the branch was newly protected (false when it already was). */
  async add(repoId: string, branch: string, rule?: StoredRule): Promise<boolean> {
    const result = await this.#db
      .insertInto('protected_branches')
      .values({
        repo_id: repoId,
        branch,
        created_at: Date.now(),
        ...(rule && columnsOf(rule)),
      })
      .onConflict((oc) => oc.columns(['repo_id', 'branch']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  /** Whether there was such a protected branch. */
  async remove(repoId: string, branch: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('protected_branches')
      .where('repo_id', '=', repoId)
      .where('branch', '=', branch)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}

function columnsOf(rule: StoredRule) {
  const { enableStatusCheck, statusCheckContexts, ...settings } = rule;
  return {
    enable_status_check: enableStatusCheck,
    status_check_contexts: JSON.stringify(statusCheckContexts),
    settings: JSON.stringify(settings),
    updated_at: Date.now(),
  };
}

function ruleOf(row: {
  enable_status_check: boolean | number;
  status_check_contexts: string;
}): RequiredCheckRule {
  return {
    enableStatusCheck: Boolean(row.enable_status_check),
    statusCheckContexts: contextsOf(row.status_check_contexts),
  };
}

/** The stored JSON array of patterns; anything else (never written) reads as none. */
function contextsOf(stored: string): string[] {
  try {
    const parsed: unknown = JSON.parse(stored);
    return Array.isArray(parsed) ? parsed.filter((p): p is string => typeof p === 'string') : [];
  } catch {
    return [];
  }
}
