import { randomHex, sha256Hex } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import type { UserService } from '../users/user.service.ts';
import type { User } from '../users/user.types.ts';
import type { SessionStore } from './session.store.ts';

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
  readonly #store: SessionStore;
  readonly #users: UserService;
  readonly #lifetimeMs: number;

  constructor(store: SessionStore, users: UserService, lifetimeMs: number) {
    this.#store = store;
    this.#users = users;
    this.#lifetimeMs = lifetimeMs;
  }

  async start(
    user: User,
    origin: SessionOrigin = {},
  ): Promise<{ secret: string; expiresAt: Date }> {
    const secret = randomHex(32);
    const now = Date.now();
    const expiresAt = now + this.#lifetimeMs;
    await this.#store.insert({
      id: newId(),
      userId: user.id,
      tokenHash: sha256Hex(secret),
      createdAt: now,
      expiresAt,
      lastSeenAt: now,
      userAgent: (origin.userAgent ?? '').slice(0, MAX_USER_AGENT),
    });
    return { secret, expiresAt: new Date(expiresAt) };
  }

  /** The signed-in person, or undefined for an unknown, expired or malformed secret. */
  async resolve(secret: string): Promise<User | undefined> {
    if (!SESSION_PATTERN.test(secret)) return undefined;
    const now = Date.now();
    const session = await this.#store.findByHash(sha256Hex(secret));
    if (!session || session.expiresAt <= now) return undefined;
    if (now - session.lastSeenAt > TOUCH_RESOLUTION_MS) await this.#store.touch(session.id, now);
    return this.#users.findActiveUser(session.userId);
  }

  async end(secret: string): Promise<void> {
    if (!SESSION_PATTERN.test(secret)) return;
    await this.#store.deleteByHash(sha256Hex(secret));
  }

  /** The person's unexpired sign-ins, most recently used first; `current` marks `secret`'s. */
  async list(user: User, secret: string): Promise<SessionSummary[]> {
    const currentHash = SESSION_PATTERN.test(secret) ? sha256Hex(secret) : '';
    const sessions = await this.#store.listUnexpired(user.id, Date.now());
    return sessions.map((session) => ({
      id: session.id,
      createdAt: new Date(session.createdAt),
      lastSeenAt: new Date(session.lastSeenAt),
      userAgent: session.userAgent,
      current: session.tokenHash === currentHash,
    }));
  }

  /** Ends one of the person's own sign-ins; someone else's id is silently nothing. */
  async revoke(user: User, sessionId: string): Promise<void> {
    await this.#store.deleteOwned(user.id, sessionId);
  }

  /** Ends every sign-in of the person except the one holding `secret` ("sign out everywhere"). */
  async endOthers(user: User, secret: string): Promise<void> {
    // A malformed secret keeps nothing: no stored hash matches it anyway.
    await this.#store.deleteAllOf(user.id, SESSION_PATTERN.test(secret) ? sha256Hex(secret) : '');
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

  /**
   * Sets a new password without the current one (the operator's `user set-password`) and ends
   * every sign-in of the account: whoever knew the old password is out at once.
   */
  async resetPassword(user: User, next: string): Promise<void> {
    await this.#users.setPassword(user, next);
    await this.#store.deleteAllOf(user.id);
  }

  /** Removes expired rows; any replica may run it. */
  async sweepExpired(): Promise<void> {
    await this.#store.deleteExpired(Date.now());
  }
}
