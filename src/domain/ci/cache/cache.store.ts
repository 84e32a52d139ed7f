import { type Kysely, type Selectable, sql } from 'kysely';
import { uniqueOrConflict } from '../../../db/errors.ts';
import type { CiCachesTable, Tables } from '../../../db/tables.ts';
import type { Page } from '../../paging.ts';
import type { CacheEntry, CacheFilter, NewCacheEntry } from './cache.types.ts';

function entryOf(row: Selectable<CiCachesTable>): CacheEntry {
  return {
    id: Number(row.id),
    repoId: row.repo_id,
    scope: row.scope,
    key: row.cache_key,
    version: row.version,
    status: row.status,
    size: Number(row.size),
    linkSecret: row.link_secret,
    createdAt: Number(row.created_at),
    lastAccessedAt: Number(row.last_accessed_at),
  };
}

/** Queries over `ci_caches`. */
export class CacheStore {
  readonly #db: Kysely<Tables>;

  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /**
   * The ready entry of `scope` whose lower-cased key is `prefix` itself or, failing that, the
   * newest one that starts with it.
   */
  async match(repoId: string, scope: string, version: string, prefix: string) {
    const row = await this.#db
      .selectFrom('ci_caches')
      .selectAll()
      .where('repo_id', '=', repoId)
      .where('scope', '=', scope)
      .where('version', '=', version)
      .where('status', '=', 'ready')
      .where(sql`substr(key_lower, 1, ${prefix.length})`, '=', prefix)
      .orderBy(sql`case when key_lower = ${prefix} then 0 else 1 end`)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && entryOf(row);
  }

  /** Records a reservation; Conflict when the scope already has this key and version. */
  async reserve(entry: NewCacheEntry, now: number): Promise<CacheEntry> {
    const row = await uniqueOrConflict(
      () =>
        this.#db
          .insertInto('ci_caches')
          .values({
            repo_id: entry.repoId,
            scope: entry.scope,
            cache_key: entry.key,
            key_lower: entry.key.toLowerCase(),
            version: entry.version,
            status: 'reserved',
            link_secret: entry.linkSecret,
            created_at: now,
            updated_at: now,
            last_accessed_at: now,
          })
          .returningAll()
          .executeTakeFirstOrThrow(),
      `another job is already saving the cache "${entry.key}" with this version`,
    );
    return entryOf(row);
  }

  /** One entry by id, in any state. */
  async byId(id: number): Promise<CacheEntry | undefined> {
    const row = await this.#db
      .selectFrom('ci_caches')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && entryOf(row);
  }

  /** Marks an upload as still alive (housekeeping expires silent reservations). */
  async touchUpload(id: number, now: number): Promise<void> {
    await this.#db.updateTable('ci_caches').set({ updated_at: now }).where('id', '=', id).execute();
  }

  /** Commits a reservation with its final size; false when it was not reserved any more. */
  async commit(id: number, size: number, now: number): Promise<boolean> {
    const result = await this.#db
      .updateTable('ci_caches')
      .set({ status: 'ready', size, updated_at: now, created_at: now, last_accessed_at: now })
      .where('id', '=', id)
      .where('status', '=', 'reserved')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Records a read, for least-recently-used eviction. */
  async touchAccess(id: number, now: number): Promise<void> {
    await this.#db
      .updateTable('ci_caches')
      .set({ last_accessed_at: now })
      .where('id', '=', id)
      .execute();
  }

  #filtered(repoId: string, filter: CacheFilter) {
    let query = this.#db
      .selectFrom('ci_caches')
      .where('repo_id', '=', repoId)
      .where('status', '=', 'ready');
    if (filter.scope !== undefined) query = query.where('scope', '=', filter.scope);
    if (filter.keyPrefix !== undefined) {
      const prefix = filter.keyPrefix.toLowerCase();
      query = query.where(sql`substr(key_lower, 1, ${prefix.length})`, '=', prefix);
    }
    return query;
  }

  /** A repository's ready entries, most recently used first; a page of them when asked. */
  async list(repoId: string, filter: CacheFilter = {}, page?: Page): Promise<CacheEntry[]> {
    let query = this.#filtered(repoId, filter)
      .selectAll()
      .orderBy('last_accessed_at', 'desc')
      .orderBy('id', 'desc');
    if (page) query = query.limit(page.limit).offset(page.offset);
    return (await query.execute()).map(entryOf);
  }

  /** How many ready entries `list` would answer without a page. */
  async count(repoId: string, filter: CacheFilter = {}): Promise<number> {
    const row = await this.#filtered(repoId, filter)
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** The least recently used ready entries of a repository, at most `limit`. */
  async leastRecentlyUsed(repoId: string, limit: number): Promise<CacheEntry[]> {
    const rows = await this.#filtered(repoId, {})
      .selectAll()
      .orderBy('last_accessed_at', 'asc')
      .orderBy('id', 'asc')
      .limit(limit)
      .execute();
    return rows.map(entryOf);
  }

  /** Bytes of a repository's entries, reservations counted at what they have written so far. */
  async totalSize(repoId: string): Promise<number> {
    const row = await this.#db
      .selectFrom('ci_caches')
      .select((eb) => eb.fn.sum<number | string | null>('size').as('total'))
      .where('repo_id', '=', repoId)
      .where('status', '=', 'ready')
      .executeTakeFirst();
    return Number(row?.total ?? 0);
  }

  /** Deletes entries by id; the ids that were deleted. */
  async remove(ids: readonly number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const rows = await this.#db
      .deleteFrom('ci_caches')
      .where('id', 'in', ids)
      .returning('id')
      .execute();
    return rows.map((row) => Number(row.id));
  }

  /** The run of a running task, as far as cache scoping needs it. */
  async runOfTask(taskId: number) {
    const row = await this.#db
      .selectFrom('ci_tasks')
      .innerJoin('workflow_runs', 'workflow_runs.id', 'ci_tasks.run_id')
      .select([
        'workflow_runs.repo_id',
        'workflow_runs.ref',
        'workflow_runs.base_ref',
        'workflow_runs.fork_pull',
      ])
      .where('ci_tasks.id', '=', taskId)
      .where('ci_tasks.status', '=', 'running')
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return {
      repoId: row.repo_id,
      ref: row.ref,
      baseRef: row.base_ref,
      forkPull: Boolean(row.fork_pull),
    };
  }

  /** Which of `ids` still have an entry. */
  async existing(ids: readonly number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const rows = await this.#db
      .selectFrom('ci_caches')
      .select('id')
      .where('id', 'in', ids)
      .execute();
    return new Set(rows.map((row) => Number(row.id)));
  }

  /** Reservations not written to since `before`, and ready entries not read since `idleBefore`. */
  async stale(before: number, idleBefore: number): Promise<number[]> {
    const rows = await this.#db
      .selectFrom('ci_caches')
      .select('id')
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'reserved'), eb('updated_at', '<', before)]),
          eb.and([eb('status', '=', 'ready'), eb('last_accessed_at', '<', idleBefore)]),
        ]),
      )
      .limit(1000)
      .execute();
    return rows.map((row) => Number(row.id));
  }
}
