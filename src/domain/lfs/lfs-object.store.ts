import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../../db/migration.ts';
import type { Tables } from '../../db/tables.ts';

/** What the store knows of an object named in a batch, for one repository. */
export type KnownObject = { readonly size: number; readonly reachable: boolean };

/** Queries over `lfs_objects` and `lfs_repo_objects`. */
export class LfsObjectStore {
  readonly #db: Kysely<Tables>;
  readonly #dialect: Dialect;

  constructor(db: Kysely<Tables>, dialect: Dialect = 'sqlite') {
    this.#db = db;
    this.#dialect = dialect;
  }

  /**
   * The stored objects among `oids`, each with whether `repoId` may reach it: one query for the
   * whole batch, however many objects it names.
   */
  async known(repoId: string, oids: readonly string[]): Promise<Map<string, KnownObject>> {
    const found = new Map<string, KnownObject>();
    if (oids.length === 0) return found;
    const rows = await this.#db
      .selectFrom('lfs_objects as o')
      .leftJoin('lfs_repo_objects as r', (join) =>
        join.onRef('r.oid', '=', 'o.oid').on('r.repo_id', '=', repoId),
      )
      .select(['o.oid', 'o.size', 'r.repo_id'])
      // The ids travel as one parameter, whatever their number: a statement of one shape,
      // prepared once, rather than one placeholder per object.
      .where(
        this.#dialect === 'postgres'
          ? sql<boolean>`o.oid = any(${[...oids]}::text[])`
          : sql<boolean>`o.oid in (select value from json_each(${JSON.stringify(oids)}))`,
      )
      .execute();
    for (const row of rows) {
      found.set(row.oid, { size: Number(row.size), reachable: row.repo_id !== null });
    }
    return found;
  }

  /** Records a stored object (if new) and that `repoId` may reach it. */
  async add(repoId: string, oid: string, size: number, now: number): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      await trx
        .insertInto('lfs_objects')
        .values({ oid, size, created_at: now })
        .onConflict((c) => c.column('oid').doNothing())
        .execute();
      await trx
        .insertInto('lfs_repo_objects')
        .values({ repo_id: repoId, oid, created_at: now })
        .onConflict((c) => c.columns(['repo_id', 'oid']).doNothing())
        .execute();
    });
  }

  /**
   * Records that the bytes of `oid` are being put in place: a new row, or the old one made young
   * again, so no sweep takes the object for an orphan before the upload links it.
   */
  async recordStored(oid: string, size: number, now: number): Promise<void> {
    await this.#db
      .insertInto('lfs_objects')
      .values({ oid, size, created_at: now })
      .onConflict((c) => c.column('oid').doUpdateSet({ created_at: now }))
      .execute();
  }

  /** Gives `forkId` every object `parentId` reaches (rows only: the bytes are shared). */
  async share(parentId: string, forkId: string, now: number): Promise<void> {
    await this.#db
      .insertInto('lfs_repo_objects')
      .columns(['repo_id', 'oid', 'created_at'])
      .expression((eb) =>
        eb
          .selectFrom('lfs_repo_objects')
          .select([sql.lit(forkId).as('repo_id'), 'oid', sql.lit(now).as('created_at')])
          .where('repo_id', '=', parentId),
      )
      .onConflict((c) => c.columns(['repo_id', 'oid']).doNothing())
      .execute();
  }

  /** The bytes of the objects `repoId` reaches, and how many there are. */
  async usage(repoId: string): Promise<{ objects: number; bytes: number }> {
    const row = await this.#db
      .selectFrom('lfs_repo_objects as r')
      .innerJoin('lfs_objects as o', 'o.oid', 'r.oid')
      .select((eb) => [eb.fn.countAll().as('objects'), eb.fn.sum('o.size').as('bytes')])
      .where('r.repo_id', '=', repoId)
      .executeTakeFirst();
    return { objects: Number(row?.objects ?? 0), bytes: Number(row?.bytes ?? 0) };
  }

  /** Objects no repository reaches, recorded before `before` (so never one mid-upload). */
  async orphans(before: number, limit: number): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('lfs_objects as o')
      .select('o.oid')
      .where('o.created_at', '<', before)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('lfs_repo_objects as r').select('r.oid').whereRef('r.oid', '=', 'o.oid'),
          ),
        ),
      )
      .limit(limit)
      .execute();
    return rows.map((row) => row.oid);
  }

  /**
   * Forgets `oid` if still no repository reaches it and it was recorded before `before`; whether
   * it did. A link made, or an upload begun, since the orphan was listed keeps the row, and so
   * the bytes.
   */
  async forgetOrphan(oid: string, before: number): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('lfs_objects')
      .where('oid', '=', oid)
      .where('created_at', '<', before)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('lfs_repo_objects').select('oid').where('oid', '=', oid))),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /**
   * Every object some repository reaches, with its size, for `kiln doctor`. An object none
   * reaches is an upload whose bytes are still landing, or an orphan the sweep will remove:
   * neither is a repository's object gone missing.
   */
  async all(): Promise<{ oid: string; size: number }[]> {
    const rows = await this.#db
      .selectFrom('lfs_objects as o')
      .select(['o.oid', 'o.size'])
      .where(({ exists, selectFrom }) =>
        exists(selectFrom('lfs_repo_objects as r').select('r.oid').whereRef('r.oid', '=', 'o.oid')),
      )
      .execute();
    return rows.map((row) => ({ oid: row.oid, size: Number(row.size) }));
  }
}
