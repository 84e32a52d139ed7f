import { randomHex, sha256Hex } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import { Invalid, NotFound } from '../errors.ts';
import { isActionsBot } from '../users/actions-bot.ts';
import type { UserService } from '../users/user.service.ts';
import type { User } from '../users/user.types.ts';
import type { StoredToken, TokenStore } from './token.store.ts';
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

function toToken(stored: StoredToken): AccessToken {
  return {
    id: stored.id,
    userId: stored.userId,
    name: stored.name,
    lastEight: stored.lastEight,
    createdAt: new Date(stored.createdAt),
    lastUsedAt: stored.lastUsedAt === null ? null : new Date(stored.lastUsedAt),
    scopes: storedScopes(stored.scopeNames),
    expiresAt: stored.expiresAt === null ? null : new Date(stored.expiresAt),
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
  readonly #store: TokenStore;
  readonly #users: UserService;

  constructor(store: TokenStore, users: UserService) {
    this.#store = store;
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
    // The bot acts only through a running task's token, whose grant bounds it; a personal
    // token of its own would carry no task and so open nothing (see `taskScopeOf`).
    if (isActionsBot(user)) {
      throw new Invalid(
        `${user.handle} is the built-in actions bot: it acts only through CI task tokens and cannot hold an access token`,
      );
    }
    const label = name.trim();
    if (label.length === 0 || label.length > 100)
      throw new Invalid('token name must be 1 to 100 characters');
    const scopes = scopeNames(parseScopes(options.scopes ?? 'all')).join(',');
    const now = Date.now();
    const expiresAt = expiryOf(options.expiresAt, now);
    const token = randomHex(TOKEN_BYTES);
    const stored: StoredToken = {
      id: newId(),
      userId: user.id,
      name: label,
      lastEight: token.slice(-8),
      createdAt: now,
      lastUsedAt: null,
      scopeNames: scopes,
      expiresAt,
    };
    await this.#store.insert({ ...stored, hash: sha256Hex(token) });
    return { token, record: toToken(stored) };
  }

  async list(user: User): Promise<AccessToken[]> {
    return (await this.#store.listByUser(user.id)).map(toToken);
  }

  async revoke(user: User, tokenId: string): Promise<void> {
    if (!(await this.#store.deleteOwned(user.id, tokenId)))
      throw new NotFound('access token does not exist');
  }

  /**
   * The person a token belongs to and what the token lets them do, or undefined for a
   * malformed, unknown, revoked or expired token (all alike to the caller: an expired token is
   * refused exactly as an unknown one).
   */
  async authenticate(token: string): Promise<TokenHolder | undefined> {
    if (!TOKEN_PATTERN.test(token)) return undefined;
    const match = await this.#store.findByHash(sha256Hex(token));
    if (!match) return undefined;
    const now = Date.now();
    if (match.expiresAt !== null && match.expiresAt <= now) return undefined;
    if (match.lastUsedAt === null || now - match.lastUsedAt > LAST_USED_RESOLUTION_MS) {
      await this.#store.touch(match.id, now);
    }
    const user = await this.#users.findActiveUser(match.userId);
    return user ? { user, scopes: storedScopes(match.scopeNames) } : undefined;
  }
}
