import type { Db } from '../../db/database.ts';

/** A branch's last push: who made it and when (epoch milliseconds). */
export type BranchPush = {
  readonly branch: string;
  readonly pusherId: string;
  readonly pushedAt: number;
};

/**
 * The `branch_pushes` rows: the last push of each branch, for the pull suggestions and for the
 * approval of runs from forks (who pushed the head a run would execute).
 */
export class BranchPushStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Records a push of `branch`, replacing the one before. */
  async record(repoId: string, push: BranchPush): Promise<void> {
    await this.#db
      .insertInto('branch_pushes')
      .values({
        repo_id: repoId,
        branch: push.branch,
        pusher_id: push.pusherId,
        pushed_at: push.pushedAt,
      })
      .onConflict((oc) =>
        oc
          .columns(['repo_id', 'branch'])
          .doUpdateSet({ pusher_id: push.pusherId, pushed_at: push.pushedAt }),
      )
      .execute();
  }

  /** The last push of `branch`, if one was recorded since the branch was last created. */
  async find(repoId: string, branch: string): Promise<BranchPush | undefined> {
    const row = await this.#db
      .selectFrom('branch_pushes')
      .select(['branch', 'pusher_id', 'pushed_at'])
      .where('repo_id', '=', repoId)
      .where('branch', '=', branch)
      .executeTakeFirst();
    return row && { branch: row.branch, pusherId: row.pusher_id, pushedAt: Number(row.pushed_at) };
  }

  /** Forgets a deleted branch. */
  async forget(repoId: string, branch: string): Promise<void> {
    await this.#db
      .deleteFrom('branch_pushes')
      .where('repo_id', '=', repoId)
      .where('branch', '=', branch)
      .execute();
  }

  /** The branches `pusherId` pushed last, at `since` or later, newest first (at most `limit`). */
  async listByPusherSince(
    repoId: string,
    pusherId: string,
    since: number,
    limit: number,
  ): Promise<BranchPush[]> {
    const rows = await this.#db
      .selectFrom('branch_pushes')
      .select(['branch', 'pusher_id', 'pushed_at'])
      .where('repo_id', '=', repoId)
      .where('pusher_id', '=', pusherId)
      .where('pushed_at', '>=', since)
      .orderBy('pushed_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      branch: row.branch,
      pusherId: row.pusher_id,
      pushedAt: Number(row.pushed_at),
    }));
  }
}
