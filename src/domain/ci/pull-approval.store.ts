import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.ts';
import type { WorkflowRun } from './ci.types.ts';
import { toRun } from './ci-rows.ts';

/** Run statuses that may still change. */
const UNFINISHED = ['PENDING', 'BLOCKED', 'RUNNING'] as const;

/**
 * Queries over the approvals of pull requests from forks (fork-approval.ts): which people a
 * pull request's approval covers, its runs that wait, and the approval itself.
 */
export class PullApprovalStore {
  readonly #db: Kysely<Tables>;

  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /** Whether a writer approved this person's runs of this pull request. */
  async isApproved(pullId: string, actorId: string): Promise<boolean> {
    const row = await this.#db
      .selectFrom('ci_pull_approvals')
      .select('actor_id')
      .where('pull_id', '=', pullId)
      .where('actor_id', '=', actorId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The runs of a pull request that still wait for approval and have not finished, oldest first. */
  async listWaiting(pullId: string): Promise<WorkflowRun[]> {
    const rows = await this.#db
      .selectFrom('workflow_runs')
      .selectAll()
      .where('pull_id', '=', pullId)
      .where('needs_approval', '=', true)
      .where('approved_at', 'is', null)
      .where('status', 'in', [...UNFINISHED])
      .orderBy('number')
      .execute();
    return rows.map(toRun);
  }

  /**
   * Approves a pull request: every run of it still unapproved (finished ones too, so a later
   * re-run does not ask) is stamped with who and when, and the pull's author, the people
   * who made those runs and the last pusher of its head branch are recorded as approved for
   * this pull. Conditional on `approved_at` being null, so of two
   * approvals racing each run is stamped once. Returns the ids of the unfinished runs it
   * stamped (the ones whose jobs may go now).
   */
  async approve(pullId: string, approverId: string, now: number): Promise<string[]> {
    const stamped = await this.#db
      .updateTable('workflow_runs')
      .set({ approved_by: approverId, approved_at: now, updated_at: now })
      .where('pull_id', '=', pullId)
      .where('needs_approval', '=', true)
      .where('approved_at', 'is', null)
      .returning(['id', 'triggered_by', 'status'])
      .execute();
    // The last pusher of the head branch too: a run that is not a push's own waits for them
    // (fork-approval.ts), and approving it is approving the head they pushed.
    const pull = await this.#db
      .selectFrom('pull_requests')
      .leftJoin('branch_pushes', (join) =>
        join
          .onRef('branch_pushes.repo_id', '=', 'pull_requests.head_repo_id')
          .onRef('branch_pushes.branch', '=', 'pull_requests.head_branch'),
      )
      .select(['pull_requests.author_id', 'branch_pushes.pusher_id'])
      .where('pull_requests.id', '=', pullId)
      .executeTakeFirst();
    const actors = new Set(stamped.flatMap((run) => (run.triggered_by ? [run.triggered_by] : [])));
    if (pull !== undefined && stamped.length > 0) {
      actors.add(pull.author_id);
      if (pull.pusher_id) actors.add(pull.pusher_id);
    }
    for (const actorId of actors) {
      await this.#db
        .insertInto('ci_pull_approvals')
        .values({ pull_id: pullId, actor_id: actorId, approved_by: approverId, approved_at: now })
        .onConflict((oc) => oc.columns(['pull_id', 'actor_id']).doNothing())
        .execute();
    }
    const unfinished: readonly string[] = UNFINISHED;
    return stamped.filter((run) => unfinished.includes(run.status)).map((run) => run.id);
  }
}
