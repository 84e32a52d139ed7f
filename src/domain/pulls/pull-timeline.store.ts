import type { Db } from '../../db/database.ts';
import type { PullTimelineEntry } from './pull-timeline.types.ts';

export type { PullTimelineEntry };

/** The `pull_timeline` rows. */
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
    return rows.map((row) => ({
      id: row.id,
      pullId: row.pull_id,
      kind: row.kind,
      actorId: row.actor_id,
      oldSha: row.old_sha,
      newSha: row.new_sha,
      commits: Number(row.commits),
      note: row.note,
      createdAt: new Date(Number(row.created_at)),
    }));
  }
}
