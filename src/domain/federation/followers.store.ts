import { prepared } from '../../db/prepared.ts';
import type { FederationDb } from './federation.tables.ts';

/** A remote actor following a local one, with where to deliver to it. */
export type Follower = {
  readonly follower: string;
  readonly inbox: string;
  readonly sharedInbox: string | null;
  readonly host: string;
};

/**
 * Remote followers of local actors (`user:<id>`, `repo:<id>`). Adding is idempotent: a replayed
 * `Follow` refreshes the inboxes and changes nothing else.
 */
export class FollowersStore {
  readonly #db: FederationDb;
  // Every view of a public repository's code shows its count.
  readonly #count;

  constructor(db: FederationDb) {
    this.#db = db;
    this.#count = prepared(db, (p: { actor: string }) =>
      db
        .selectFrom('federation_followers')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('actor', '=', p.actor),
    );
  }

  async add(actor: string, follower: Follower): Promise<void> {
    const row = {
      actor,
      follower: follower.follower,
      inbox: follower.inbox,
      shared_inbox: follower.sharedInbox,
      host: follower.host,
      created_at: Date.now(),
    };
    await this.#db
      .insertInto('federation_followers')
      .values(row)
      .onConflict((c) =>
        c.columns(['actor', 'follower']).doUpdateSet({
          inbox: row.inbox,
          shared_inbox: row.shared_inbox,
        }),
      )
      .execute();
  }

  async remove(actor: string, follower: string): Promise<void> {
    await this.#db
      .deleteFrom('federation_followers')
      .where('actor', '=', actor)
      .where('follower', '=', follower)
      .execute();
  }

  /** Forgets every follower of a local actor (it was withdrawn and told them so). */
  async removeAll(actor: string): Promise<void> {
    await this.#db.deleteFrom('federation_followers').where('actor', '=', actor).execute();
  }

  /** Removes a remote actor from everything it follows (it deleted itself). */
  async removeFollower(follower: string): Promise<void> {
    await this.#db.deleteFrom('federation_followers').where('follower', '=', follower).execute();
  }

  async count(actor: string): Promise<number> {
    const [row] = await this.#count({ actor });
    return Number(row?.n ?? 0);
  }

  /** A page of follower ids, oldest first. */
  async page(actor: string, offset: number, limit: number): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('federation_followers')
      .select('follower')
      .where('actor', '=', actor)
      .orderBy('created_at')
      .orderBy('follower')
      .offset(offset)
      .limit(limit)
      .execute();
    return rows.map((row) => row.follower);
  }

  /** Everyone to deliver to, for fan-out. */
  async all(actor: string): Promise<Follower[]> {
    const rows = await this.#db
      .selectFrom('federation_followers')
      .select(['follower', 'inbox', 'shared_inbox', 'host'])
      .where('actor', '=', actor)
      .execute();
    return rows.map((row) => ({
      follower: row.follower,
      inbox: row.inbox,
      sharedInbox: row.shared_inbox,
      host: row.host,
    }));
  }

  /** How many followers each remote host has here (hosts with none are absent). */
  async countByHost(): Promise<Map<string, number>> {
    const rows = await this.#db
      .selectFrom('federation_followers')
      .select(['host', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('host')
      .execute();
    return new Map(rows.map((row) => [row.host, Number(row.n)]));
  }
}
