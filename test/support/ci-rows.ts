import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { CiTaskStatus, Tables, WorkflowRunStatus } from '../../src/db/tables.ts';

/**
 * Workflow runs and jobs written straight to the tables, for suites that ask who may see or use
 * a run, or what a migration makes of stored rows, rather than how one starts (test/runner covers
 * that end to end). Only columns present since the CI tables took their shape are written unless
 * a caller names more, so suites that migrate part of the way can use these as well.
 */

/** A run as a suite describes it: a push to `main` of `ci.yml` unless told otherwise. */
export type RunRow = {
  readonly repoId: string;
  readonly number: number;
  readonly status: WorkflowRunStatus;
  readonly sha?: string;
  readonly ref?: string;
  readonly baseRef?: string;
  readonly forkPull?: boolean;
  readonly workflowFile?: string;
  readonly triggeredBy?: string | null;
  readonly concurrencyGroup?: string | null;
  /** Its creation time (and start, and end when done); now unless told. */
  readonly at?: number;
};

/** A job of a run: `build` unless told otherwise. */
export type JobRow = {
  readonly status: CiTaskStatus;
  readonly tokenHash?: string | null;
  readonly attempt?: number;
  readonly concurrencyGroup?: string | null;
  readonly at?: number;
};

const ENDED_RUN: ReadonlySet<WorkflowRunStatus> = new Set([
  'SUCCESS',
  'FAILURE',
  'CANCELLED',
  'SKIPPED',
]);
const WAITING_JOB: ReadonlySet<CiTaskStatus> = new Set(['blocked', 'pending', 'running']);

/** Writes one run without jobs; returns its id. */
export async function insertRun(db: Kysely<Tables>, run: RunRow): Promise<string> {
  const runId = randomUUID();
  const at = run.at ?? Date.now();
  const ref = run.ref ?? 'refs/heads/main';
  await db
    .insertInto('workflow_runs')
    .values({
      id: runId,
      repo_id: run.repoId,
      number: run.number,
      workflow_name: 'ci',
      workflow_file: run.workflowFile ?? 'ci.yml',
      event: ref.startsWith('refs/pull/') ? 'pull_request' : 'push',
      ref,
      sha: run.sha ?? 'a'.repeat(40),
      triggered_by: run.triggeredBy ?? null,
      status: run.status,
      base_ref: run.baseRef ?? '',
      fork_pull: run.forkPull === true,
      created_at: at,
      started_at: at,
      stopped_at: ENDED_RUN.has(run.status) ? at : null,
      updated_at: at,
      error: null,
      concurrency_group: run.concurrencyGroup ?? null,
    })
    .execute();
  return runId;
}

/** Writes one job of `runId`; returns its task id. */
export async function insertJob(db: Kysely<Tables>, runId: string, job: JobRow): Promise<number> {
  const at = job.at ?? Date.now();
  const row = await db
    .insertInto('ci_tasks')
    .values({
      run_id: runId,
      name: 'build',
      runs_on: '[]',
      needs: '[]',
      outputs: '{}',
      job_key: 'build',
      payload: '{}',
      runner_id: null,
      status: job.status,
      log_rows: 0,
      deadline_at: null,
      created_at: at,
      started_at: at,
      stopped_at: WAITING_JOB.has(job.status) ? null : at,
      token_hash: job.tokenHash ?? null,
      heartbeat_at: at,
      ...(job.attempt === undefined ? {} : { attempt: job.attempt }),
      ...(job.concurrencyGroup === undefined ? {} : { concurrency_group: job.concurrencyGroup }),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** A run and its one job. */
export async function insertRunWithJob(
  db: Kysely<Tables>,
  run: RunRow,
  job: JobRow,
): Promise<{ runId: string; taskId: number }> {
  const runId = await insertRun(db, run);
  const taskId = await insertJob(db, runId, job);
  return { runId, taskId };
}
