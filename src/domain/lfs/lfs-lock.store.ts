import type { Kysely } from 'kysely';
import { uniqueOrConflict } from '../../db/errors.ts';
import type { Tables } from '../../db/tables.ts';
import type { LfsLock } from './lfs.types.ts';

/** What a lock list may be narrowed to. */
export type LockFilter = {
  readonly path?: string;
  readonly id?: number;
  /** Only locks whose id is at least this (the cursor of a page). */
  readonly fromId?: number;
  readonly ownerId?: string;
  readonly limit: number;
};

/** Queries over `lfs_locks`, each lock with its owner's handle. */
export class LfsLockStore {
  readonly #db: Kysely<Tables>;

  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  #select() {
    return this.#db
      .selectFrom('lfs_locks as l')
      .innerJoin('users as u', 'u.id', 'l.owner_id')
      .select(['l.id', 'l.repo_id', 'l.path', 'l.owner_id', 'l.created_at', 'u.handle']);
  }

  /** Locks `path`; Conflict when it is locked already (by anyone). */
  async create(repoId: string, path: string, ownerId: string, now: number): Promise<number> {
    const row = await uniqueOrConflict(
      () =>
        this.#db
          .insertInto('lfs_locks')
          .values({ repo_id: repoId, path, owner_id: ownerId, created_at: now })
          .returning('id')
          .executeTakeFirstOrThrow(),
      'already created lock',
    );
    return Number(row.id);
  }

  /** The lock of `path`, if any. */
  async byPath(repoId: string, path: string): Promise<LfsLock | undefined> {
    const row = await this.#select()
      .where('l.repo_id', '=', repoId)
      .where('l.path', '=', path)
      .executeTakeFirst();
    return row && lockOf(row);
  }

  /** Locks in id order, narrowed by `filter`; `limit + 1` rows tell whether a page follows. */
  async list(repoId: string, filter: LockFilter): Promise<LfsLock[]> {
    let query = this.#select().where('l.repo_id', '=', repoId);
    if (filter.path !== undefined) query = query.where('l.path', '=', filter.path);
    if (filter.id !== undefined) query = query.where('l.id', '=', filter.id);
    if (filter.fromId !== undefined) query = query.where('l.id', '>=', filter.fromId);
    if (filter.ownerId !== undefined) query = query.where('l.owner_id', '=', filter.ownerId);
    const rows = await query.orderBy('l.id').limit(filter.limit).execute();
    return rows.map(lockOf);
  }

  /** Removes the lock `id` of the repository; whether there was one. */
  async delete(repoId: string, id: number): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('lfs_locks')
      .where('repo_id', '=', repoId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

type LockRow = {
  id: number;
  repo_id: string;
  path: string;
  owner_id: string;
  created_at: number;
  handle: string;
};

function lockOf(row: LockRow): LfsLock {
  return {
    id: Number(row.id),
    repoId: row.repo_id,
    path: row.path,
    ownerId: row.owner_id,
    ownerHandle: row.handle,
    lockedAt: new Date(Number(row.created_at)),
  };
}
