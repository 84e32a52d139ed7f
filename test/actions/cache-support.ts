import { randomBytes, randomUUID } from 'node:crypto';
import { sha256Hex } from '../../src/lib/crypto.ts';
import type { TestServer } from '../support/server.ts';

/** The run a cache caller belongs to. */
export type RunShape = { readonly ref: string; readonly baseRef?: string; readonly fork?: boolean };

let runNumber = 1000 + Math.floor(Math.random() * 1000) * 1000;

/**
 * A running task of a run on `shape.ref`, written straight to the tables with a known task
 * token: these suites need callers of many refs, pulls and forks, not workflows that start
 * them (test/runner covers that path end to end).
 */
export async function runningTask(
  kiln: TestServer,
  repoId: string,
  shape: RunShape,
): Promise<{ taskId: number; token: string }> {
  const token = randomBytes(20).toString('hex');
  const runId = randomUUID();
  const now = Date.now();
  const pull = shape.ref.startsWith('refs/pull/');
  await kiln.app.database.db
    .insertInto('workflow_runs')
    .values({
      id: runId,
      repo_id: repoId,
      number: runNumber++,
      workflow_name: 'ci',
      workflow_file: 'ci.yml',
      event: pull ? 'pull_request' : 'push',
      ref: shape.ref,
      sha: 'a'.repeat(40),
      triggered_by: null,
      status: 'RUNNING',
      base_ref: shape.baseRef ?? '',
      fork_pull: shape.fork === true,
      created_at: now,
      started_at: now,
      stopped_at: null,
      updated_at: now,
      error: null,
      concurrency_group: null,
    })
    .execute();
  const row = await kiln.app.database.db
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
      status: 'running',
      log_rows: 0,
      deadline_at: null,
      created_at: now,
      started_at: now,
      stopped_at: null,
      token_hash: sha256Hex(token),
      heartbeat_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { taskId: Number(row.id), token };
}

/** Ends a task as the server does when it finishes: its token dies with it. */
export async function endTask(kiln: TestServer, taskId: number): Promise<void> {
  await kiln.app.database.db
    .updateTable('ci_tasks')
    .set({ status: 'success', token_hash: null })
    .where('id', '=', taskId)
    .execute();
}
