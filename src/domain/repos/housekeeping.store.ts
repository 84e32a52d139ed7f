import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { newId } from '../../lib/ids.ts';

/** What one maintenance run did, as kept for the admin page. */
export type HousekeepingRun = {
  readonly repoId: string;
  /** The process that ran it. */
  readonly holder: string;
  readonly kind: 'incremental' | 'full';
  readonly outcome: 'ok' | 'failed';
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly packsBefore: number;
  readonly looseBefore: number;
  readonly packsAfter: number;
  readonly looseAfter: number;
  /** A short reason when it failed; never git's stderr. */
  readonly error: string | null;
};

/** A run with the repository it concerned, when that repository still exists. */
export type HousekeepingRunView = HousekeepingRun & {
  readonly repository: { readonly owner: string; readonly name: string } | undefined;
};

/** A claimed lease: the caller may maintain the repository until it releases or it expires. */
export type HousekeepingLease = {
  /** Epoch ms of the repository's last full repack, 0 when there was none. */
  readonly lastFullAt: number;
};

/** Runs are kept this long, so the table stays small whatever the push rate. */
const RUN_HISTORY_MS = 30 * 86_400_000;

const int = (value: number) => sql`cast(${value} as bigint)`;

/**
 * The `repo_housekeeping` leases and the `housekeeping_runs` history. A lease is claimed by one
 * statement on either engine, an insert that, on conflict, takes the row over only when the
 * lease has expired; so of any number of replicas claiming at once exactly one gets it.
 */
export class HousekeepingStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * Claims the repository's lease for `holder` until `now + leaseMs`; undefined when another
   * holder's lease is still running (or this holder's own: claims do not nest).
   */
  async claim(
    repoId: string,
    holder: string,
    now: number,
    leaseMs: number,
  ): Promise<HousekeepingLease | undefined> {
    const result = await sql<{ last_full_at: number }>`
      insert into repo_housekeeping (repo_id, holder, lease_until, last_full_at)
      values (${repoId}, ${holder}, ${int(now + leaseMs)}, ${int(0)})
      on conflict (repo_id) do update set
        holder = excluded.holder,
        lease_until = excluded.lease_until
      where repo_housekeeping.lease_until <= ${int(now)}
      returning last_full_at`.execute(this.#db);
    const row = result.rows[0];
    return row === undefined ? undefined : { lastFullAt: Number(row.last_full_at) };
  }

  /** Gives the lease back (only if `holder` still holds it), noting a full repack at `fullAt`. */
  async release(repoId: string, holder: string, fullAt: number | undefined): Promise<void> {
    let update = this.#db
      .updateTable('repo_housekeeping')
      .set({ lease_until: 0 })
      .where('repo_id', '=', repoId)
      .where('holder', '=', holder);
    if (fullAt !== undefined) update = update.set({ last_full_at: fullAt });
    await update.execute();
  }

  /** Keeps a finished run, and forgets runs older than the history window. */
  async record(run: HousekeepingRun): Promise<void> {
    await this.#db
      .insertInto('housekeeping_runs')
      .values({
        id: newId(),
        repo_id: run.repoId,
        holder: run.holder,
        kind: run.kind,
        outcome: run.outcome,
        started_at: run.startedAt,
        finished_at: run.finishedAt,
        packs_before: run.packsBefore,
        loose_before: run.looseBefore,
        packs_after: run.packsAfter,
        loose_after: run.looseAfter,
        error: run.error,
      })
      .execute();
    await this.#db
      .deleteFrom('housekeeping_runs')
      .where('finished_at', '<', run.finishedAt - RUN_HISTORY_MS)
      .execute();
  }

  /** The latest runs, newest first, with their repositories' names. */
  async listRecent(limit: number): Promise<HousekeepingRunView[]> {
    const rows = await this.#db
      .selectFrom('housekeeping_runs as run')
      .leftJoin('repositories as repo', 'repo.id', 'run.repo_id')
      .leftJoin('users as owner', 'owner.id', 'repo.owner_id')
      .selectAll('run')
      .select(['repo.name as repo_name', 'owner.handle as owner_handle'])
      .orderBy('run.finished_at', 'desc')
      .orderBy('run.id')
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      repoId: row.repo_id,
      holder: row.holder,
      kind: row.kind === 'full' ? 'full' : 'incremental',
      outcome: row.outcome === 'ok' ? 'ok' : 'failed',
      startedAt: Number(row.started_at),
      finishedAt: Number(row.finished_at),
      packsBefore: Number(row.packs_before),
      looseBefore: Number(row.loose_before),
      packsAfter: Number(row.packs_after),
      looseAfter: Number(row.loose_after),
      error: row.error,
      repository:
        row.repo_name && row.owner_handle
          ? { owner: row.owner_handle, name: row.repo_name }
          : undefined,
    }));
  }
}
