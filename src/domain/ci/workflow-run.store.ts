import { type Selectable, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { CiTasksTable, WorkflowRunsTable } from '../../db/tables.ts';
import { newId } from '../../lib/ids.ts';
import { parseStringArray } from '../runners/runner-input.ts';
import type { CiTask, WorkflowRun } from './ci.types.ts';

export type NewRun = {
  readonly repoId: string;
  readonly workflowName: string;
  readonly workflowFile: string;
  readonly event: string;
  readonly ref: string;
  readonly sha: string;
  readonly triggeredBy: string | null;
};

export type NewTask = {
  readonly name: string;
  readonly jobKey: string;
  readonly runsOn?: readonly string[];
  readonly needs?: readonly string[];
  readonly payload?: string;
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
  };
}

/**
 * Creates a pending workflow run with its tasks. The run number comes from an atomic upsert on
 * the repository's counter in the same transaction, so concurrent triggers on any number of
 * replicas never share or skip a number.
 */
export async function createRun(
  db: Db,
  run: NewRun,
  tasks: readonly NewTask[],
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
    const row: WorkflowRunsTable = {
      id: newId(),
      repo_id: run.repoId,
      number: Number(counter.last_number),
      workflow_name: run.workflowName,
      workflow_file: run.workflowFile,
      event: run.event,
      ref: run.ref,
      sha: run.sha,
      triggered_by: run.triggeredBy,
      status: 'PENDING',
      created_at: now,
      started_at: null,
      stopped_at: null,
      updated_at: now,
    };
    await trx.insertInto('workflow_runs').values(row).execute();
    const created: CiTask[] = [];
    for (const task of tasks) {
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
          status: 'pending',
          log_rows: 0,
          deadline_at: null,
          created_at: now,
          started_at: null,
          stopped_at: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      created.push(toTask(inserted));
    }
    return { run: toRun(row), tasks: created };
  });
}
