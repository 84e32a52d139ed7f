import { type Selectable, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { PullTimelineTable } from '../../db/tables.ts';
import type { PullTimelineEntry } from './pull-timeline.types.ts';

export type { PullTimelineEntry };

/** One item of a pull's timeline named by its kind and row id, in timeline order. */
export type TimelineKey = { readonly kind: 'review' | 'event'; readonly id: string };

function toEntry(row: Selectable<PullTimelineTable>): PullTimelineEntry {
  return {
    id: row.id,
    pullId: row.pull_id,
    kind: row.kind,
    actorId: row.actor_id,
    oldSha: row.old_sha,
    newSha: row.new_sha,
    commits: Number(row.commits),
    note: row.note,
    createdAt: new Date(Number(row.created_at)),
  };
}

/** The `pull_timeline` rows, and the order of a pull's whole timeline (its reviews too). */
export class PullTimelineStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async insert(entry: PullTimelineEntry): Promise<void> {
    await this.#db
      .insertInto('pull_timeline')
      .values({
        id: entry.id,
        pull_id: entry.pullId,
        kind: entry.kind,
        actor_id: entry.actorId,
        old_sha: entry.oldSha,
        new_sha: entry.newSha,
        commits: entry.commits,
        note: entry.note,
        created_at: entry.createdAt.getTime(),
      })
      .execute();
  }

  /** The pull's entries, oldest first. */
  async listByPull(pullId: string): Promise<PullTimelineEntry[]> {
    const rows = await this.#db
      .selectFrom('pull_timeline')
      .selectAll()
      .where('pull_id', '=', pullId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toEntry);
  }

  /** The pull's entries among `ids`, oldest first. */
  async listByIds(pullId: string, ids: readonly string[]): Promise<PullTimelineEntry[]> {
    if (ids.length === 0) return [];
    const rows = await this.#db
      .selectFrom('pull_timeline')
      .selectAll()
      .where('pull_id', '=', pullId)
      .where('id', 'in', ids)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toEntry);
  }

  /**
   * The first `head` and the last `tail` items of the pull's timeline (its submitted reviews,
   * at their submission, and its entries), in order, and how many items it has in all. One
   * query that reads ids only: a long timeline costs a sort of keys, not its rows. The order
   * is the page's: time, then a review before an entry of the same millisecond, then creation
   * and id.
   */
  async endsOf(
    pullId: string,
    head: number,
    tail: number,
  ): Promise<{ keys: TimelineKey[]; total: number }> {
    const { rows } = await sql<{ kind: string; id: string; total: number | string }>`
      select kind, id, total from (
        select kind, id,
          row_number() over (order by at, rank, created_at, id) as n,
          count(*) over () as total
        from (
          select 'review' as kind, id, coalesce(submitted_at, created_at) as at, 0 as rank, created_at
            from pull_reviews where pull_id = ${pullId} and state <> 'PENDING'
          union all
          select 'event' as kind, id, created_at as at, 1 as rank, created_at
            from pull_timeline where pull_id = ${pullId}
        ) as items
      ) as numbered
      where n <= ${head} or n > total - ${tail}
      order by n`.execute(this.#db);
    const keys = rows.map((row) => ({
      kind: row.kind === 'review' ? ('review' as const) : ('event' as const),
      id: row.id,
    }));
    return { keys, total: rows[0] === undefined ? 0 : Number(rows[0].total) };
  }
}
