import type { Db } from '../../db/database.ts';
import { prepared } from '../../db/prepared.ts';

/** A sign-in as stored: the hash of its cookie secret, times as epoch milliseconds. */
export type StoredSession = {
  readonly id: string;
  readonly userId: string;
  readonly tokenHash: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly lastSeenAt: number;
  readonly userAgent: string;
};

/** The `sessions` rows. Only hashes of cookie secrets are stored. */
export class SessionStore {
  readonly #db: Db;
  /** Every signed-in page looks its session up by hash. */
  readonly #byHash;

  constructor(db: Db) {
    this.#db = db;
    this.#byHash = prepared(db, (p: { hash: string }) =>
      db
        .selectFrom('sessions')
        .select(['id', 'user_id', 'expires_at', 'last_seen_at'])
        .where('token_hash', '=', p.hash),
    );
  }

  async insert(session: StoredSession): Promise<void> {
    await this.#db
      .insertInto('sessions')
      .values({
        id: session.id,
        user_id: session.userId,
        token_hash: session.tokenHash,
        created_at: session.createdAt,
        expires_at: session.expiresAt,
        last_seen_at: session.lastSeenAt,
        user_agent: session.userAgent,
      })
      .execute();
  }

  async findByHash(
    hash: string,
  ): Promise<Pick<StoredSession, 'id' | 'userId' | 'expiresAt' | 'lastSeenAt'> | undefined> {
    const [row] = await this.#byHash({ hash });
    return (
      row && {
        id: row.id,
        userId: row.user_id,
        expiresAt: row.expires_at,
        lastSeenAt: row.last_seen_at,
      }
    );
  }

  async touch(sessionId: string, at: number): Promise<void> {
    await this.#db
      .updateTable('sessions')
      .set({ last_seen_at: at })
      .where('id', '=', sessionId)
      .execute();
  }

  /** The person's sign-ins that have not expired at `now`, most recently used first. */
  async listUnexpired(userId: string, now: number): Promise<StoredSession[]> {
    const rows = await this.#db
      .selectFrom('sessions')
      .selectAll()
      .where('user_id', '=', userId)
      .where('expires_at', '>', now)
      .orderBy('last_seen_at', 'desc')
      .orderBy('id')
      .execute();
    return rows.map((row) => ({
      id: row.id,
      userId: row.user_id,
      tokenHash: row.token_hash,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      lastSeenAt: row.last_seen_at,
      userAgent: row.user_agent,
    }));
  }

  async deleteByHash(hash: string): Promise<void> {
    await this.#db.deleteFrom('sessions').where('token_hash', '=', hash).execute();
  }

  /** Deletes one of the person's sign-ins; another person's id deletes nothing. */
  async deleteOwned(userId: string, sessionId: string): Promise<void> {
    await this.#db
      .deleteFrom('sessions')
      .where('id', '=', sessionId)
      .where('user_id', '=', userId)
      .execute();
  }

  /** Deletes every sign-in of the person except the one with hash `keepHash`. */
  async deleteAllOf(userId: string, keepHash = ''): Promise<void> {
    let query = this.#db.deleteFrom('sessions').where('user_id', '=', userId);
    if (keepHash !== '') query = query.where('token_hash', '<>', keepHash);
    await query.execute();
  }

  async deleteExpired(now: number): Promise<void> {
    await this.#db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
  }
}
