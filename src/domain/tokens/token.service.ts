import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { uniqueOrConflict } from '../../db/errors.ts';
import { prepared } from '../../db/prepared.ts';
import type { AccessTokensTable } from '../../db/tables.ts';
import { randomHex, sha256Hex } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import { Invalid, NotFound } from '../errors.ts';
import type { UserService } from '../users/user.service.ts';
import type { User } from '../users/user.types.ts';

export type AccessToken = {
  readonly id: string;
  readonly userId: string;
  readonly name: string;
  readonly lastEight: string;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
};

/** 20 random bytes as 40 hex characters: 160 bits, the shape Gitea's tokens have. */
const TOKEN_BYTES = 20;
const TOKEN_PATTERN = /^[0-9a-f]{40}$/;
/** last_used_at is written at most this often per token, so reads do not turn into writes. */
const LAST_USED_RESOLUTION_MS = 60_000;

function toToken(row: Selectable<AccessTokensTable>): AccessToken {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    lastEight: row.token_last_eight,
    createdAt: new Date(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at),
  };
}

/**
 * Personal access tokens. The plaintext exists only in the return value of `create`; the
 * database keeps its SHA-256.
 */
export class TokenService {
  readonly #db: Db;
  readonly #users: UserService;
  /** Every request with a token looks it up by hash. */
  readonly #byHash;

  constructor(db: Db, users: UserService) {
    this.#db = db;
    this.#byHash = prepared(db, (p: { hash: string }) =>
      db
        .selectFrom('access_tokens')
        .select(['id', 'user_id', 'last_used_at'])
        .where('token_hash', '=', p.hash),
    );
    this.#users = users;
  }

  async create(user: User, name: string): Promise<{ token: string; record: AccessToken }> {
    const label = name.trim();
    if (label.length === 0 || label.length > 100)
      throw new Invalid('token name must be 1 to 100 characters');
    const token = randomHex(TOKEN_BYTES);
    const row: AccessTokensTable = {
      id: newId(),
      user_id: user.id,
      name: label,
      token_hash: sha256Hex(token),
      token_last_eight: token.slice(-8),
      created_at: Date.now(),
      last_used_at: null,
    };
    await uniqueOrConflict(
      () => this.#db.insertInto('access_tokens').values(row).execute(),
      `access token name has been used already [name: ${label}]`,
    );
    return { token, record: toToken(row) };
  }

  async list(user: User): Promise<AccessToken[]> {
    const rows = await this.#db
      .selectFrom('access_tokens')
      .selectAll()
      .where('user_id', '=', user.id)
      .orderBy('created_at', 'desc')
      .execute();
    return rows.map(toToken);
  }

  async revoke(user: User, tokenId: string): Promise<void> {
    const result = await this.#db
      .deleteFrom('access_tokens')
      .where('id', '=', tokenId)
      .where('user_id', '=', user.id)
      .executeTakeFirst();
    if (result.numDeletedRows === 0n) throw new NotFound('access token does not exist');
  }

  /** The person a token belongs to, or undefined for a malformed, unknown or revoked token. */
  async authenticate(token: string): Promise<User | undefined> {
    if (!TOKEN_PATTERN.test(token)) return undefined;
    const [row] = await this.#byHash({ hash: sha256Hex(token) });
    if (!row) return undefined;
    const now = Date.now();
    if (row.last_used_at === null || now - row.last_used_at > LAST_USED_RESOLUTION_MS) {
      await this.#db
        .updateTable('access_tokens')
        .set({ last_used_at: now })
        .where('id', '=', row.id)
        .execute();
    }
    return this.#users.findActiveUser(row.user_id);
  }
}
