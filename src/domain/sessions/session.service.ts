import type { Db } from '../../db/database.ts';
import { prepared } from '../../db/prepared.ts';
import { randomHex, sha256Hex } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import type { UserService } from '../users/user.service.ts';
import type { User } from '../users/user.types.ts';

const SESSION_PATTERN = /^[0-9a-f]{64}$/;
const TOUCH_RESOLUTION_MS = 60_000;
const MAX_USER_AGENT = 300;

/** One active sign-in as its owner sees it on the sessions page. */
export type SessionSummary = {
  readonly id: string;
  readonly createdAt: Date;
  readonly lastSeenAt: Date;
  readonly userAgent: string;
  /** Whether this is the sign-in the listing was asked from. */
  readonly current: boolean;
};

/** What the browser said about itself when it signed in. */
export type SessionOrigin = { readonly userAgent?: string | undefined };

/**
 * Web sign-ins, stored in the database so they can be revoked and are seen by every replica.
 * The cookie carries a random secret; the table keeps only its SHA-256, so neither a database
 * dump nor the sessions page can be turned back into a cookie.
 */
export class SessionService {
  readonly #db: Db;
  readonly #users: UserService;
  readonly #lifetimeMs: number;
  /** Every signed-in page looks its session up by hash. */
  readonly #byHash;

  constructor(db: Db, users: UserService, lifetimeMs: number) {
    this.#db = db;
    this.#users = users;
    this.#lifetimeMs = lifetimeMs;
    this.#byHash = prepared(db, (p: { hash: string }) =>
      db
        .selectFrom('sessions')
        .select(['id', 'user_id', 'expires_at', 'last_seen_at'])
        .where('token_hash', '=', p.hash),
    );
  }

  async start(
    user: User,
    origin: SessionOrigin = {},
  ): Promise<{ secret: string; expiresAt: Date }> {
    const secret = randomHex(32);
    const now = Date.now();
    const expiresAt = now + this.#lifetimeMs;
    await this.#db
      .insertInto('sessions')
      .values({
        id: newId(),
        user_id: user.id,
        token_hash: sha256Hex(secret),
        created_at: now,
        expires_at: expiresAt,
        last_seen_at: now,
        user_agent: (origin.userAgent ?? '').slice(0, MAX_USER_AGENT),
      })
      .execute();
    return { secret, expiresAt: new Date(expiresAt) };
  }

  /** The signed-in person, or undefined for an unknown, expired or malformed secret. */
  async resolve(secret: string): Promise<User | undefined> {
    if (!SESSION_PATTERN.test(secret)) return undefined;
    const now = Date.now();
    const [row] = await this.#byHash({ hash: sha256Hex(secret) });
    if (!row || row.expires_at <= now) return undefined;
    if (now - row.last_seen_at > TOUCH_RESOLUTION_MS) {
      await this.#db
        .updateTable('sessions')
        .set({ last_seen_at: now })
        .where('id', '=', row.id)
        .execute();
    }
    return this.#users.findActiveUser(row.user_id);
  }

  async end(secret: string): Promise<void> {
    if (!SESSION_PATTERN.test(secret)) return;
    await this.#db.deleteFrom('sessions').where('token_hash', '=', sha256Hex(secret)).execute();
  }

  /** The person's unexpired sign-ins, most recently used first; `current` marks `secret`'s. */
  async list(user: User, secret: string): Promise<SessionSummary[]> {
    const currentHash = SESSION_PATTERN.test(secret) ? sha256Hex(secret) : '';
    const rows = await this.#db
      .selectFrom('sessions')
      .select(['id', 'token_hash', 'created_at', 'last_seen_at', 'user_agent'])
      .where('user_id', '=', user.id)
      .where('expires_at', '>', Date.now())
      .orderBy('last_seen_at', 'desc')
      .orderBy('id')
      .execute();
    return rows.map((row) => ({
      id: row.id,
      createdAt: new Date(row.created_at),
      lastSeenAt: new Date(row.last_seen_at),
      userAgent: row.user_agent,
      current: row.token_hash === currentHash,
    }));
  }

  /** Ends one of the person's own sign-ins; someone else's id is silently nothing. */
  async revoke(user: User, sessionId: string): Promise<void> {
    await this.#db
      .deleteFrom('sessions')
      .where('id', '=', sessionId)
      .where('user_id', '=', user.id)
      .execute();
  }

  /** Ends every sign-in of the person except the one holding `secret` ("sign out everywhere"). */
  async endOthers(user: User, secret: string): Promise<void> {
    const keep = SESSION_PATTERN.test(secret) ? sha256Hex(secret) : '';
    await this.#db
      .deleteFrom('sessions')
      .where('user_id', '=', user.id)
      .where('token_hash', '<>', keep)
      .execute();
  }

  /**
   * Changes the password and ends every other sign-in of the account, in that order: whoever
   * signed in with the old password (perhaps the reason for the change) is out at once, while
   * the browser that made the change stays signed in.
   */
  async changePassword(user: User, secret: string, current: string, next: string): Promise<void> {
    await this.#users.changePassword(user, current, next);
    await this.endOthers(user, secret);
  }

  /** Removes expired rows; any replica may run it. */
  async sweepExpired(): Promise<void> {
    await this.#db.deleteFrom('sessions').where('expires_at', '<=', Date.now()).execute();
  }
}
