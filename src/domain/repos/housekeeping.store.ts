import type { Db } from '../../db/database.ts';
import { LeaseQueue, type LeaseQueueShape } from '../../db/lease-queue.ts';
import type { Tables } from '../../db/tables.ts';
import { newId } from '../../lib/ids.ts';
import type { HousekeepingRun } from './housekeeping.types.ts';

/** A claimed lease: the caller may maintain the repository until it releases or it expires. */
export type HousekeepingLease = {
  /** Epoch ms of the repository's last full repack, 0 when there was none. */
  readonly lastFullAt: number;
};

/** Runs are kept this long, so the table stays small whatever the push rate. */
const RUN_HISTORY_MS = 30 * 86_400_000;

/** One row per repository directory, made by its first claim. */
const REPO_LEASES: LeaseQueueShape<Tables, 'repo_housekeeping'> = {
  table: 'repo_housekeeping',
  key: 'repo_key',
  lease: 'lease_until',
  freeLease: 0,
};

/**
 * The `repo_housekeeping` leases and the `housekeeping_runs` history. A lease is claimed through
 * the one lease queue (`db/lease-queue.ts`) by one statement on either engine, an insert that,
 * on conflict, takes the row over only when the lease has expired; so of any number of replicas
 * claiming at once exactly one gets it.
 */
export class HousekeepingStore {
  readonly #db: Db;
  readonly #leases: LeaseQueue<Tables, 'repo_housekeeping'>;

  constructor(db: Db) {
    this.#db = db;
    this.#leases = new LeaseQueue(db, REPO_LEASES);
  }

  /**
   * Claims the lease of the repository directory `repoKey` for `holder` until `now + leaseMs`;
   * undefined when another holder's lease is still running (or this holder's own: claims do
   * not nest).
   */
  async claim(
    repoKey: string,
    holder: string,
    now: number,
    leaseMs: number,
  ): Promise<HousekeepingLease | undefined> {
    const row = await this.#leases.claimKey(repoKey, {
      now,
      leaseMs,
      set: { holder },
      create: { last_full_at: 0 },
      returning: ['last_full_at'],
    });
    return row === undefined ? undefined : { lastFullAt: Number(row.last_full_at) };
  }

  /** Gives the lease back (only if `holder` still holds it), noting a full repack at `fullAt`. */
  async release(repoKey: string, holder: string, fullAt: number | undefined): Promise<void> {
    await this.#leases.release(repoKey, {
      where: (eb) => eb('holder', '=', holder),
      set: fullAt === undefined ? {} : { last_full_at: fullAt },
    });
  }

  /** Keeps a finished run, and forgets runs older than the history window. */
  async record(run: HousekeepingRun): Promise<void> {
    await this.#db
      .insertInto('housekeeping_runs')
      .values({
        id: newId(),
        repo_key: run.repoKey,
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

  /** The latest runs of every process, newest first. */
  async listRecent(limit: number): Promise<HousekeepingRun[]> {
    const rows = await this.#db
      .selectFrom('housekeeping_runs')
      .selectAll()
      .orderBy('finished_at', 'desc')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      repoKey: row.repo_key,
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
    }));
  }
}
