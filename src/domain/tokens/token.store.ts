import type { Db } from '../../db/database.ts';
import { uniqueOrConflict } from '../../db/errors.ts';
import { prepared } from '../../db/prepared.ts';

/** A token as stored: its scope names still as written, times as epoch milliseconds. */
export type StoredToken = {
  readonly id: string;
  readonly userId: string;
  readonly name: string;
  readonly lastEight: string;
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
  /** Gitea's normalized scope names, comma-separated. */
  readonly scopeNames: string;
  readonly expiresAt: number | null;
};

/** What a presented token's hash finds: enough to authenticate and to touch its last use. */
export type TokenMatch = Pick<
  StoredToken,
  'id' | 'userId' | 'lastUsedAt' | 'scopeNames' | 'expiresAt'
>;

/** The `access_tokens` rows. Only hashes are stored; the plaintext never reaches here. */
export class TokenStore {
  readonly #db: Db;
  /** Every request with a token looks it up by hash. */
  readonly #byHash;

  constructor(db: Db) {
    this.#db = db;
    this.#byHash = prepared(db, (p: { hash: string }) =>
      db
        .selectFrom('access_tokens')
        .select(['id', 'user_id', 'last_used_at', 'scopes', 'expires_at'])
        .where('token_hash', '=', p.hash),
    );
  }

  /** Stores a new token under its hash; a name the person already used is a `Conflict`. */
  async insert(token: StoredToken & { readonly hash: string }): Promise<void> {
    await uniqueOrConflict(
      () =>
        this.#db
          .insertInto('access_tokens')
          .values({
            id: token.id,
            user_id: token.userId,
            name: token.name,
            token_hash: token.hash,
            token_last_eight: token.lastEight,
            created_at: token.createdAt,
            last_used_at: token.lastUsedAt,
            scopes: token.scopeNames,
            expires_at: token.expiresAt,
          })
          .execute(),
      `access token name has been used already [name: ${token.name}]`,
    );
  }

  async findByHash(hash: string): Promise<TokenMatch | undefined> {
    const [row] = await this.#byHash({ hash });
    return (
      row && {
        id: row.id,
        userId: row.user_id,
        lastUsedAt: row.last_used_at,
        scopeNames: row.scopes,
        expiresAt: row.expires_at,
      }
    );
  }

  /** The person's tokens, newest first. */
  async listByUser(userId: string): Promise<StoredToken[]> {
    const rows = await this.#db
      .selectFrom('access_tokens')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .execute();
    return rows.map((row) => ({
      id: row.id,
      userId: row.user_id,
      name: row.name,
      lastEight: row.token_last_eight,
      createdAt: row.created_at,
      lastUsedAt: row.last_used_at,
      scopeNames: row.scopes,
      expiresAt: row.expires_at,
    }));
  }

  /** Deletes one of the person's tokens; false when they have none with that id. */
  async deleteOwned(userId: string, tokenId: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('access_tokens')
      .where('id', '=', tokenId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async touch(tokenId: string, at: number): Promise<void> {
    await this.#db
      .updateTable('access_tokens')
      .set({ last_used_at: at })
      .where('id', '=', tokenId)
      .execute();
  }
}
