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
import { ALL_SCOPES, parseScopes, scopeNames, type TokenScopes } from './token-scopes.ts';

export type AccessToken = {
  readonly id: string;
  readonly userId: string;
  readonly name: string;
  readonly lastEight: string;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly scopes: TokenScopes;
  /** When the token stops working; null when it never does. */
  readonly expiresAt: Date | null;
};

/** What a new token may do: scope names (`all` when not given) and an optional expiry. */
export type TokenOptions = {
  readonly scopes?: string | readonly string[] | undefined;
  readonly expiresAt?: Date | null | undefined;
};

/** Who holds a presented token, and what that token allows them to do. */
export type TokenHolder = { readonly user: User; readonly scopes: TokenScopes };

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
    scopes: storedScopes(row.scopes),
    expiresAt: row.expires_at === null ? null : new Date(row.expires_at),
  };
}

/**
 * The stored names, parsed. They were normalized on the way in; a row that no longer parses
 * (edited by hand) grants nothing rather than everything.
 */
function storedScopes(names: string): TokenScopes {
  if (names === 'all') return ALL_SCOPES;
  try {
    return parseScopes(names);
  } catch {
    return new Map();
  }
}

/** The expiry as stored, refusing one that has passed or is not a date. */
function expiryOf(expiresAt: Date | null | undefined, now: number): number | null {
  if (expiresAt === undefined || expiresAt === null) return null;
  const at = expiresAt.getTime();
  if (!Number.isFinite(at)) throw new Invalid('token expiry is not a date');
  if (at <= now) throw new Invalid('token expiry must be in the future');
  return at;
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
        .select(['id', 'user_id', 'last_used_at', 'scopes', 'expires_at'])
        .where('token_hash', '=', p.hash),
    );
    this.#users = users;
  }

  /**
   * A new token for `user`. Without options it has every scope and never expires (what the
   * command line and tokens made before scopes exist have).
   */
  async create(
    user: User,
    name: string,
    options: TokenOptions = {},
  ): Promise<{ token: string; record: AccessToken }> {
    const label = name.trim();
    if (label.length === 0 || label.length > 100)
      throw new Invalid('token name must be 1 to 100 characters');
    const scopes = scopeNames(parseScopes(options.scopes ?? 'all')).join(',');
    const now = Date.now();
    const expiresAt = expiryOf(options.expiresAt, now);
    const token = randomHex(TOKEN_BYTES);
    const row: AccessTokensTable = {
      id: newId(),
      user_id: user.id,
      name: label,
      token_hash: sha256Hex(token),
      token_last_eight: token.slice(-8),
      created_at: now,
      last_used_at: null,
      scopes,
      expires_at: expiresAt,
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

  /**
   * The person a token belongs to and what the token lets them do, or undefined for a
   * malformed, unknown, revoked or expired token (all alike to the caller: an expired token is
   * refused exactly as an unknown one).
   */
  async authenticate(token: string): Promise<TokenHolder | undefined> {
    if (!TOKEN_PATTERN.test(token)) return undefined;
    const [row] = await this.#byHash({ hash: sha256Hex(token) });
    if (!row) return undefined;
    const now = Date.now();
    if (row.expires_at !== null && row.expires_at <= now) return undefined;
    if (row.last_used_at === null || now - row.last_used_at > LAST_USED_RESOLUTION_MS) {
      await this.#db
        .updateTable('access_tokens')
        .set({ last_used_at: now })
        .where('id', '=', row.id)
        .execute();
    }
    const user = await this.#users.findActiveUser(row.user_id);
    return user ? { user, scopes: storedScopes(row.scopes) } : undefined;
  }
}
