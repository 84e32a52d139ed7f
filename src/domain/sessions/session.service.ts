import type { Db } from '../../db/database.ts';
import { prepared } from '../../db/prepared.ts';
import { randomHex, sha256Hex } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import type { UserService } from '../users/user.service.ts';
import type { User } from '../users/user.types.ts';

const SESSION_PATTERN = /^[0-9a-f]{64}$/;
const TOUCH_RESOLUTION_MS = 60_000;

/**
 * Web sign-ins, stored in the database so they can be revoked and are seen by every replica.
 * The cookie carries a random secret; the table keeps its SHA-256.
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

  async start(user: User): Promise<{ secret: string; expiresAt: Date }> {
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

  /** Removes expired rows; any replica may run it. */
  async sweepExpired(): Promise<void> {
    await this.#db.deleteFrom('sessions').where('expires_at', '<=', Date.now()).execute();
  }
}
