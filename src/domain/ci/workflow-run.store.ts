import { type Selectable, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { CiTasksTable, WorkflowRunsTable } from '../../db/tables.ts';
import { newId } from '../../lib/ids.ts';
import { parseStringArray } from '../runners/runner-input.ts';
import type { CiTask, WorkflowRun } from './ci.types.ts';
import { bumpTasksVersions } from './tasks-version.ts';
import { aggregateStatus } from './workflow/job-status.ts';

export type NewRun = {
  readonly repoId: string;
  readonly workflowName: string;
  readonly workflowFile: string;
  readonly event: string;
  readonly ref: string;
  readonly sha: string;
  readonly triggeredBy: string | null;
  readonly title?: string;
  readonly eventPayload?: unknown;
  readonly actor?: string;
  readonly headRef?: string;
  readonly baseRef?: string;
  readonly forkPull?: boolean;
  /** Why the run cannot start; the run is recorded failed with no jobs. */
  readonly error?: string;
  readonly concurrencyGroup?: string;
};

export type NewTask = {
  readonly name: string;
  readonly jobKey: string;
  readonly runsOn?: readonly string[];
  readonly needs?: readonly string[];
  readonly payload?: string;
  readonly hasIf?: boolean;
  readonly stepNames?: readonly string[];
};

export function toRun(row: Selectable<WorkflowRunsTable>): WorkflowRun {
  return {
    id: row.id,
    repoId: row.repo_id,
    number: Number(row.number),
    workflowName: row.workflow_name,
    workflowFile: row.workflow_file,
    event: row.event,
    ref: row.ref,
    sha: row.sha,
    triggeredBy: row.triggered_by,
    status: row.status,
    createdAt: new Date(row.created_at),
    startedAt: row.started_at === null ? null : new Date(row.started_at),
    stoppedAt: row.stopped_at === null ? null : new Date(row.stopped_at),
    updatedAt: new Date(row.updated_at),
    title: row.title,
    eventPayload: parseJson(row.event_payload),
    actor: row.actor,
    headRef: row.head_ref,
    baseRef: row.base_ref,
    forkPull: Boolean(row.fork_pull),
    error: row.error,
    concurrencyGroup: row.concurrency_group,
  };
}

export function toTask(row: Selectable<CiTasksTable>): CiTask {
  return {
    id: Number(row.id),
    runId: row.run_id,
    name: row.name,
    runsOn: parseStringArray(row.runs_on),
    needs: parseStringArray(row.needs),
    jobKey: row.job_key,
    runnerId: row.runner_id,
    status: row.status,
    logRows: Number(row.log_rows),
    deadlineAt: row.deadline_at === null ? null : new Date(row.deadline_at),
    createdAt: new Date(row.created_at),
    startedAt: row.started_at === null ? null : new Date(row.started_at),
    stoppedAt: row.stopped_at === null ? null : new Date(row.stopped_at),
    payload: row.payload,
    attempt: Number(row.attempt),
    hasIf: Boolean(row.has_if),
    stepNames: parseStringArray(row.step_names),
    logSealed: Boolean(row.log_sealed),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return {};
  }
}

/**
 * Creates a workflow run with its jobs (task rows): jobs without `needs` start pending (Gitea's
 * Waiting), the others blocked. The run number comes from an atomic upsert on the repository's
 * counter in the same transaction, so concurrent triggers on any number of replicas never share
 * or skip a number; the `tasks_version` counters of `versionScopes` move in it too, so a runner
 * that sees the new version also sees the jobs. A run with an `error` is recorded failed, jobless.
 */
export async function createRun(
  db: Db,
  run: NewRun,
  tasks: readonly NewTask[],
  versionScopes: readonly string[] = [],
): Promise<{ run: WorkflowRun; tasks: CiTask[] }> {
  return db.transaction().execute(async (trx) => {
    const counter = await trx
      .insertInto('ci_run_counters')
      .values({ repo_id: run.repoId, last_number: 1 })
      .onConflict((oc) =>
        oc.column('repo_id').doUpdateSet({ last_number: sql`ci_run_counters.last_number + 1` }),
      )
      .returning('last_number')
      .executeTakeFirstOrThrow();
    const now = Date.now();
    const statuses = tasks.map((task) => ((task.needs ?? []).length > 0 ? 'blocked' : 'pending'));
    const failed = run.error !== undefined;
    const row = await trx
      .insertInto('workflow_runs')
      .values({
        id: newId(),
        repo_id: run.repoId,
        number: Number(counter.last_number),
        workflow_name: run.workflowName,
        workflow_file: run.workflowFile,
        event: run.event,
        ref: run.ref,
        sha: run.sha,
        triggered_by: run.triggeredBy,
        status: failed ? 'FAILURE' : runStatusOf(aggregateStatus(statuses)),
        created_at: now,
        started_at: null,
        stopped_at: failed ? now : null,
        updated_at: now,
        title: run.title ?? '',
        event_payload: JSON.stringify(run.eventPayload ?? {}),
        actor: run.actor ?? '',
        head_ref: run.headRef ?? '',
        base_ref: run.baseRef ?? '',
        fork_pull: run.forkPull ?? false,
        error: run.error ?? null,
        concurrency_group: run.concurrencyGroup ?? null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const created: CiTask[] = [];
    for (const [at, task] of tasks.entries()) {
      const inserted = await trx
        .insertInto('ci_tasks')
        .values({
          run_id: row.id,
          name: task.name,
          runs_on: JSON.stringify(task.runsOn ?? []),
          needs: JSON.stringify(task.needs ?? []),
          outputs: '{}',
          job_key: task.jobKey,
          payload: task.payload ?? '',
          runner_id: null,
          status: statuses[at] ?? 'pending',
          log_rows: 0,
          deadline_at: null,
          created_at: now,
          started_at: null,
          stopped_at: null,
          has_if: task.hasIf ?? false,
          step_names: JSON.stringify(task.stepNames ?? []),
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      created.push(toTask(inserted));
    }
    if (statuses.includes('pending')) await bumpTasksVersions(trx, versionScopes);
    return { run: toRun(row), tasks: created };
  });
}

/** A run's stored status for the aggregate of its jobs (job-status.ts). */
export function runStatusOf(
  status: ReturnType<typeof aggregateStatus>,
): WorkflowRunsTable['status'] {
  switch (status) {
    case 'unknown':
      return 'PENDING';
    default:
      return status.toUpperCase() as WorkflowRunsTable['status'];
  }
}
