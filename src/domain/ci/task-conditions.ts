import type { ExpressionBuilder } from 'kysely';
import type { Tables } from '../../db/tables.ts';

/*
 * Conditions on `ci_tasks` the stores share: the sweeps' (written once for the UPDATE that stops
 * the tasks, ci-task.store.ts, and the lookup of the repositories whose locks a sweep takes
 * first, job-group.store.ts) and the claim's `concurrency` guard.
 */
export type TaskCondition = (
  eb: ExpressionBuilder<Tables, 'ci_tasks'>,
) => ReturnType<ExpressionBuilder<Tables, 'ci_tasks'>['and']>;

/** A running task past its deadline, or whose runner has been silent since `silentBefore`. */
export function isZombie(now: number, silentBefore: number): TaskCondition {
  return (eb) =>
    eb.and([
      eb('status', '=', 'running'),
      eb.or([eb('deadline_at', '<', now), eb('heartbeat_at', '<', silentBefore)]),
    ]);
}

/** A job waiting (for a runner, its needs or its group) unchanged since `before`. */
export function isWaitingSince(before: number): TaskCondition {
  return (eb) =>
    eb.and([eb('status', 'in', ['pending', 'blocked']), eb('updated_at', '<', before)]);
}

/** "No other job of this group is running", for a claim. */
export function groupIsFree(
  taskId: number,
  group: { readonly repoId: string; readonly group: string } | undefined,
) {
  return ({ lit, not, exists, selectFrom }: ExpressionBuilder<Tables, 'ci_tasks'>) =>
    group === undefined
      ? lit(true)
      : not(
          exists(
            selectFrom('ci_tasks as other')
              .innerJoin('workflow_runs', 'workflow_runs.id', 'other.run_id')
              .select('other.id')
              .where('workflow_runs.repo_id', '=', group.repoId)
              .where('other.concurrency_group', '=', group.group)
              .where('other.status', '=', 'running')
              .where('other.id', '!=', taskId),
          ),
        );
}

/**
 * "The job's run does not wait for approval": FetchTask lists and claims only such jobs, so a run
 * for a pull request from a fork that no writer approved reaches no runner whatever its jobs'
 * statuses say (the invariant of fork-approval.ts, kept here in the query itself).
 */
export function runIsCleared() {
  return ({ not, exists, selectFrom }: ExpressionBuilder<Tables, 'ci_tasks'>) =>
    not(
      exists(
        selectFrom('workflow_runs as gated')
          .select('gated.id')
          .whereRef('gated.id', '=', 'ci_tasks.run_id')
          .where('gated.needs_approval', '=', true)
          .where('gated.approved_at', 'is', null),
      ),
    );
}
