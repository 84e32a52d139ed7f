import type { Selectable } from 'kysely';
import type { CiTasksTable, WorkflowRunsTable } from '../../db/tables.ts';
import { parseStringArray } from '../runners/runner-input.ts';
import type { CiTask, WorkflowRun } from './ci.types.ts';

/** A `workflow_runs` row as the domain record. */
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
    concurrencyQueued: Boolean(row.concurrency_queued),
    pullId: row.pull_id,
    needsApproval: Boolean(row.needs_approval),
    approvedBy: row.approved_by,
    approvedAt: row.approved_at === null ? null : new Date(Number(row.approved_at)),
    attempt: Math.max(1, Number(row.attempt)),
    calls: parseJson(row.calls),
  };
}

/** A `ci_tasks` row as the domain record. */
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
    concurrencyGroup: row.concurrency_group,
    concurrencyCancel: Boolean(row.concurrency_cancel),
    concurrencyQueued: Boolean(row.concurrency_queued),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
