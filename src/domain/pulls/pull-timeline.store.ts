import { type RawBuilder, type Selectable, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { PullTimelineTable } from '../../db/tables.ts';
import type { PullTimelineEntry } from './pull-timeline.types.ts';

export type { PullTimelineEntry };

/** One item of a pull's timeline named by its kind and row id. */
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
   * at their submission, and its entries), each once, and how many items it has in all. The
   * order they are cut in is the page's: time, then a review before an entry of the same
   * millisecond, then creation and id. One query that reads at most `head` and `tail` keys of
   * each kind from either end of `pull_reviews_timeline` and `pull_timeline_order`, and counts
   * along the pull's indexes: no sort of the whole timeline. Both ends are cut by the
   * database, so ids compare under its collation, as the whole timeline's order does.
   */
  async endsOf(
    pullId: string,
    head: number,
    tail: number,
  ): Promise<{ keys: TimelineKey[]; total: number }> {
    const ends = (way: RawBuilder<unknown>, limit: number) =>
      sql`select kind, id from (
          select * from (select 'review' as kind, id, coalesce(submitted_at, created_at) as at,
              0 as rank, created_at
            from pull_reviews where pull_id = ${pullId} and state <> 'PENDING'
            order by coalesce(submitted_at, created_at) ${way}, created_at ${way}, id ${way}
            limit ${limit}) as reviews
          union all
          select * from (select 'event' as kind, id, created_at as at, 1 as rank, created_at
            from pull_timeline where pull_id = ${pullId}
            order by created_at ${way}, id ${way} limit ${limit}) as events
        ) as candidates
        order by at ${way}, rank ${way}, created_at ${way}, id ${way} limit ${limit}`;
    const { rows } = await sql<{ part: string; kind: string; id: string; total: number | string }>`
      select ends.part, ends.kind, ends.id,
        (select count(*) from pull_reviews where pull_id = ${pullId} and state <> 'PENDING')
        + (select count(*) from pull_timeline where pull_id = ${pullId}) as total
      from (
        select 'head' as part, kind, id from (${ends(sql`asc`, head)}) as heads
        union all
        select 'tail' as part, kind, id from (${ends(sql`desc`, tail)}) as tails
      ) as ends`.execute(this.#db);
    const seen = new Set<string>();
    const keys: TimelineKey[] = [];
    for (const row of rows) {
      const kind = row.kind === 'review' ? 'review' : 'event';
      // A timeline shorter than both ends has items in both.
      if (seen.has(`${kind}:${row.id}`)) continue;
      seen.add(`${kind}:${row.id}`);
      keys.push({ kind, id: row.id });
    }
    return { keys, total: rows[0] === undefined ? 0 : Number(rows[0].total) };
  }
}
