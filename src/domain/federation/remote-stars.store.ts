import { prepared } from '../../db/prepared.ts';
import type { FederationDb } from './federation.tables.ts';

/**
 * Stars given to local repositories by remote actors (`Like`). One per actor and repository, so
 * a replayed `Like` counts once and an `Undo` of a star never given changes nothing.
 */
export class RemoteStarsStore {
  readonly #db: FederationDb;
  // Every view of a public repository's code shows its count.
  readonly #count;

  constructor(db: FederationDb) {
    this.#db = db;
    this.#count = prepared(db, (p: { repoId: string }) =>
      db
        .selectFrom('federation_stars')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('repo_id', '=', p.repoId),
    );
  }

  async add(repoId: string, actor: string, host: string): Promise<void> {
    await this.#db
      .insertInto('federation_stars')
      .values({ repo_id: repoId, actor, host, created_at: Date.now() })
      .onConflict((c) => c.columns(['repo_id', 'actor']).doNothing())
      .execute();
  }

  async remove(repoId: string, actor: string): Promise<void> {
    await this.#db
      .deleteFrom('federation_stars')
      .where('repo_id', '=', repoId)
      .where('actor', '=', actor)
      .execute();
  }

  /** Takes back every star of a remote actor (it deleted itself). */
  async removeActor(actor: string): Promise<void> {
    await this.#db.deleteFrom('federation_stars').where('actor', '=', actor).execute();
  }

  async count(repoId: string): Promise<number> {
    const [row] = await this.#count({ repoId });
    return Number(row?.n ?? 0);
  }

  /** Star counts of several repositories at once (absent: none). */
  async countMany(repoIds: readonly string[]): Promise<Map<string, number>> {
    if (repoIds.length === 0) return new Map();
    const rows = await this.#db
      .selectFrom('federation_stars')
      .select(['repo_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('repo_id', 'in', repoIds)
      .groupBy('repo_id')
      .execute();
    return new Map(rows.map((row) => [row.repo_id, Number(row.n)]));
  }

  /** How many stars each remote host has here (hosts with none are absent). */
  async countByHost(): Promise<Map<string, number>> {
    const rows = await this.#db
      .selectFrom('federation_stars')
      .select(['host', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('host')
      .execute();
    return new Map(rows.map((row) => [row.host, Number(row.n)]));
  }
}
