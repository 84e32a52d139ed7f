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
