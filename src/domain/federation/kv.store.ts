import type { KvKey, KvStore, KvStoreSetOptions } from '@fedify/fedify';
import { sql } from 'kysely';
import { prepared } from '../../db/prepared.ts';
import type { FederationDb } from './federation.tables.ts';

/**
 * A key is stored as its JSON array text, which no two keys share and in which the keys under a
 * prefix are exactly the texts starting with the prefix's text minus its closing bracket plus a
 * comma, whatever characters the parts hold.
 */
function encodeKey(key: KvKey): string {
  return JSON.stringify(key);
}

function ttlMs(options: KvStoreSetOptions | undefined): number | null {
  return options?.ttl ? options.ttl.total({ unit: 'millisecond' }) : null;
}

/**
 * Fedify's key-value store over Kiln's own database: one implementation for SQLite and
 * PostgreSQL, shared by every replica. Values are stored as JSON; an expired entry reads as
 * absent and is removed when next touched.
 */
export class KyselyKvStore implements KvStore {
  readonly #db: FederationDb;
  // Read on every repository page (is it a fork of one elsewhere?) and by every delivery.
  readonly #get;

  constructor(db: FederationDb) {
    this.#db = db;
    this.#get = prepared(db, (p: { key: string }) =>
      db.selectFrom('federation_kv').select(['value', 'expires_at']).where('key', '=', p.key),
    );
  }

  async get<T = unknown>(key: KvKey): Promise<T | undefined> {
    const [row] = await this.#get({ key: encodeKey(key) });
    if (!row) return undefined;
    if (row.expires_at !== null && Number(row.expires_at) <= Date.now()) {
      await this.delete(key);
      return undefined;
    }
    return JSON.parse(row.value) as T;
  }

  /**
   * The values of `keys`, in their order (undefined where absent or expired), read in one query
   * per 500 keys: a list of N things looks its records up at once, not N times. Expired entries
   * are left for `get` to remove.
   */
  async getMany<T = unknown>(keys: readonly KvKey[]): Promise<(T | undefined)[]> {
    const encoded = keys.map(encodeKey);
    const found = new Map<string, T>();
    const now = Date.now();
    for (let at = 0; at < encoded.length; at += 500) {
      const rows = await this.#db
        .selectFrom('federation_kv')
        .select(['key', 'value', 'expires_at'])
        .where('key', 'in', encoded.slice(at, at + 500))
        .execute();
      for (const row of rows) {
        if (row.expires_at !== null && Number(row.expires_at) <= now) continue;
        found.set(row.key, JSON.parse(row.value) as T);
      }
    }
    return encoded.map((key) => found.get(key));
  }

  async set(key: KvKey, value: unknown, options?: KvStoreSetOptions): Promise<void> {
    await this.setFor(key, value, ttlMs(options));
  }

  /** `set` with the lifetime in milliseconds (`null`: for ever), for callers without Temporal. */
  async setFor(key: KvKey, value: unknown, ttl: number | null): Promise<void> {
    const row = {
      key: encodeKey(key),
      value: JSON.stringify(value),
      expires_at: ttl === null ? null : Date.now() + ttl,
    };
    await this.#db
      .insertInto('federation_kv')
      .values(row)
      .onConflict((c) =>
        c.column('key').doUpdateSet({ value: row.value, expires_at: row.expires_at }),
      )
      .execute();
  }

  async delete(key: KvKey): Promise<void> {
    await this.#db.deleteFrom('federation_kv').where('key', '=', encodeKey(key)).execute();
  }

  /** Compare-and-swap: one conditional statement, so concurrent replicas cannot both win. */
  async cas(
    key: KvKey,
    expectedValue: unknown,
    newValue: unknown,
    options?: KvStoreSetOptions,
  ): Promise<boolean> {
    const ttl = ttlMs(options);
    const expiresAt = ttl === null ? null : Date.now() + ttl;
    const encoded = encodeKey(key);
    if (expectedValue === undefined) {
      const inserted = await this.#db
        .insertInto('federation_kv')
        .values({ key: encoded, value: JSON.stringify(newValue), expires_at: expiresAt })
        .onConflict((c) => c.column('key').doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
    }
    const updated = await this.#db
      .updateTable('federation_kv')
      .set({ value: JSON.stringify(newValue), expires_at: expiresAt })
      .where('key', '=', encoded)
      .where('value', '=', JSON.stringify(expectedValue))
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) > 0;
  }

  async *list(prefix?: KvKey): AsyncIterable<{ key: KvKey; value: unknown }> {
    let query = this.#db.selectFrom('federation_kv').select(['key', 'value', 'expires_at']);
    if (prefix) {
      const encoded = encodeKey(prefix);
      const head = `${encoded.slice(0, -1)},`;
      // substr rather than LIKE: URLs in keys carry `_` and `%`, which LIKE would read as
      // patterns. Both engines count characters (code points) in substr, not UTF-16 units.
      query = query.where((eb) =>
        eb.or([eb('key', '=', encoded), eb(sql`substr(key, 1, ${[...head].length})`, '=', head)]),
      );
    }
    const rows = await query.orderBy('key').execute();
    const now = Date.now();
    for (const row of rows) {
      if (row.expires_at !== null && Number(row.expires_at) <= now) continue;
      yield { key: JSON.parse(row.key) as KvKey, value: JSON.parse(row.value) };
    }
  }
}
