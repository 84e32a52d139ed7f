import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Tables, WorkflowRunStatus } from '../../src/db/tables.ts';

/**
 * A workflow run and its one job written straight to the tables, for suites that ask who may see
 * or use a run rather than how one starts (test/runner covers that end to end). The run is a push
 * to `main` of `ci.yml` unless told otherwise; the job is `build`.
 */
export async function insertRunWithJob(
  db: Kysely<Tables>,
  run: {
    readonly repoId: string;
    readonly number: number;
    readonly status: WorkflowRunStatus;
    readonly sha?: string;
    readonly ref?: string;
    readonly baseRef?: string;
    readonly forkPull?: boolean;
  },
  job: { readonly status: 'running' | 'failure'; readonly tokenHash?: string | null },
): Promise<{ runId: string; taskId: number }> {
  const runId = randomUUID();
  const now = Date.now();
  const ref = run.ref ?? 'refs/heads/main';
  const done = job.status !== 'running';
  await db
    .insertInto('workflow_runs')
    .values({
      id: runId,
      repo_id: run.repoId,
      number: run.number,
      workflow_name: 'ci',
      workflow_file: 'ci.yml',
      event: ref.startsWith('refs/pull/') ? 'pull_request' : 'push',
      ref,
      sha: run.sha ?? 'a'.repeat(40),
      triggered_by: null,
      status: run.status,
      base_ref: run.baseRef ?? '',
      fork_pull: run.forkPull === true,
      created_at: now,
      started_at: now,
      stopped_at: done ? now : null,
      updated_at: now,
      error: null,
      concurrency_group: null,
    })
    .execute();
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
      created_at: now,
      started_at: now,
      stopped_at: done ? now : null,
      token_hash: job.tokenHash ?? null,
      heartbeat_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { runId, taskId: Number(row.id) };
}
