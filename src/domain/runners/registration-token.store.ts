import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { prepared } from '../../db/prepared.ts';
import type { RunnerRegistrationTokensTable } from '../../db/tables.ts';
import { scopeLabel } from './runner.store.ts';
import type { ListedRegistrationToken, RegistrationToken, RunnerScope } from './runner.types.ts';
import { scopeColumns, scopeOf } from './runner-scope.ts';

type RegistrationTokenRow = Selectable<RunnerRegistrationTokensTable>;

function toRegistrationToken(row: RegistrationTokenRow): RegistrationToken {
  return {
    id: row.id,
    scope: scopeOf(row),
    createdBy: row.created_by,
    createdAt: new Date(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at),
  };
}

/** Queries over `runner_registration_tokens`. Only hashes are ever stored or looked up. */
export class RegistrationTokenStore {
  readonly #db: Db;
  /** Every registration looks its token up by hash. */
  readonly #byHash;

  constructor(db: Db) {
    this.#db = db;
    this.#byHash = prepared(db, (p: { hash: string }) =>
      db.selectFrom('runner_registration_tokens').selectAll().where('token_hash', '=', p.hash),
    );
  }

  /** Stores a new token (never used yet) under the hash of its plaintext. */
  async insert(token: RegistrationToken & { readonly tokenHash: string }): Promise<void> {
    await this.#db
      .insertInto('runner_registration_tokens')
      .values({
        id: token.id,
        token_hash: token.tokenHash,
        ...scopeColumns(token.scope),
        created_by: token.createdBy,
        created_at: token.createdAt.getTime(),
        last_used_at: null,
      })
      .execute();
  }

  async findByHash(tokenHash: string): Promise<RegistrationToken | undefined> {
    const [row] = await this.#byHash({ hash: tokenHash });
    return row && toRegistrationToken(row);
  }

  async findById(id: string): Promise<RegistrationToken | undefined> {
    const row = await this.#db
      .selectFrom('runner_registration_tokens')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toRegistrationToken(row);
  }

  async recordUse(id: string, now: number): Promise<void> {
    await this.#db
      .updateTable('runner_registration_tokens')
      .set({ last_used_at: now })
      .where('id', '=', id)
      .execute();
  }

  /** Tokens of one scope, or of every scope when `scope` is undefined; newest first. */
  async list(scope: RunnerScope | undefined): Promise<ListedRegistrationToken[]> {
    let query = this.#db
      .selectFrom('runner_registration_tokens as token')
      .leftJoin('repositories as repo', 'repo.id', 'token.scope_repo_id')
      .leftJoin('users as repo_owner', 'repo_owner.id', 'repo.owner_id')
      .leftJoin('users as org', 'org.id', 'token.scope_org_id')
      .leftJoin('users as creator', 'creator.id', 'token.created_by')
      .selectAll('token')
      .select([
        'repo.name as repo_name',
        'repo_owner.handle as repo_owner_handle',
        'org.handle as org_handle',
        'creator.handle as creator_handle',
      ]);
    if (scope !== undefined) {
      const columns = scopeColumns(scope);
      query = query.where('token.scope_kind', '=', columns.scope_kind);
      if (columns.scope_repo_id !== null) {
        query = query.where('token.scope_repo_id', '=', columns.scope_repo_id);
      }
      if (columns.scope_org_id !== null) {
        query = query.where('token.scope_org_id', '=', columns.scope_org_id);
      }
    }
    const rows = await query.orderBy('token.created_at', 'desc').execute();
    return rows.map((row) => ({
      ...toRegistrationToken(row),
      scopeLabel: scopeLabel(row.scope_kind, row),
      creatorHandle: row.creator_handle,
    }));
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('runner_registration_tokens')
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}
