import type { FederationDb } from './federation.tables.ts';

/** What local actors published, newest first: the source of their outbox collections. */
export class OutboxStore {
  readonly #db: FederationDb;

  constructor(db: FederationDb) {
    this.#db = db;
  }

  async add(id: string, actor: string, activity: object): Promise<void> {
    await this.#db
      .insertInto('federation_activities')
      .values({ id, actor, json: JSON.stringify(activity), created_at: Date.now() })
      .execute();
  }

  async find(id: string): Promise<{ actor: string; activity: unknown } | undefined> {
    const row = await this.#db
      .selectFrom('federation_activities')
      .select(['actor', 'json'])
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? { actor: row.actor, activity: JSON.parse(row.json) } : undefined;
  }

  /** Every activity of an actor, with its id (the actors that publish about others publish few). */
  async all(actor: string): Promise<{ id: string; activity: unknown }[]> {
    const rows = await this.#db
      .selectFrom('federation_activities')
      .select(['id', 'json'])
      .where('actor', '=', actor)
      .execute();
    return rows.map((row) => ({ id: row.id, activity: JSON.parse(row.json) }));
  }

  /** Forgets these activities (withdrawn: no longer served). */
  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.#db
      .deleteFrom('federation_activities')
      .where('id', 'in', [...ids])
      .execute();
  }

  /** Forgets everything an actor published (it was withdrawn). */
  async removeActor(actor: string): Promise<void> {
    await this.#db.deleteFrom('federation_activities').where('actor', '=', actor).execute();
  }

  async count(actor?: string): Promise<number> {
    let query = this.#db
      .selectFrom('federation_activities')
      .select((eb) => eb.fn.countAll<number>().as('n'));
    if (actor !== undefined) query = query.where('actor', '=', actor);
    const row = await query.executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async page(actor: string, offset: number, limit: number): Promise<unknown[]> {
    const rows = await this.#db
      .selectFrom('federation_activities')
      .select('json')
      .where('actor', '=', actor)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .offset(offset)
      .limit(limit)
      .execute();
    return rows.map((row) => JSON.parse(row.json));
  }
}
