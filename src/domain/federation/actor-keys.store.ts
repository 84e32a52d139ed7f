import type { FederationDb } from './federation.tables.ts';

/** A local actor's keys as stored: public halves as JWK text, private halves sealed. */
export type StoredActorKeys = {
  readonly actor: string;
  readonly rsaPublic: string;
  readonly rsaPrivateSealed: string;
  readonly ed25519Public: string;
  readonly ed25519PrivateSealed: string;
};

/** The `federation_keys` rows: one per local actor, never replaced once written. */
export class ActorKeysStore {
  readonly #db: FederationDb;

  constructor(db: FederationDb) {
    this.#db = db;
  }

  /** Stores the actor's keys unless it has some already (the first writer wins). */
  async insertIfAbsent(keys: StoredActorKeys): Promise<void> {
    await this.#db
      .insertInto('federation_keys')
      .values({
        actor: keys.actor,
        rsa_public: keys.rsaPublic,
        rsa_private: keys.rsaPrivateSealed,
        ed25519_public: keys.ed25519Public,
        ed25519_private: keys.ed25519PrivateSealed,
        created_at: Date.now(),
      })
      .onConflict((c) => c.column('actor').doNothing())
      .execute();
  }

  async find(actor: string): Promise<StoredActorKeys | undefined> {
    const row = await this.#db
      .selectFrom('federation_keys')
      .selectAll()
      .where('actor', '=', actor)
      .executeTakeFirst();
    return (
      row && {
        actor: row.actor,
        rsaPublic: row.rsa_public,
        rsaPrivateSealed: row.rsa_private,
        ed25519Public: row.ed25519_public,
        ed25519PrivateSealed: row.ed25519_private,
      }
    );
  }
}
