import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../src/lib/crypto.ts';
import { insertRunWithJob } from '../support/ci-rows.ts';
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
  const { taskId } = await insertRunWithJob(
    kiln.app.database.db,
    {
      repoId,
      number: runNumber++,
      status: 'RUNNING',
      ref: shape.ref,
      baseRef: shape.baseRef,
      forkPull: shape.fork,
    },
    { status: 'running', tokenHash: sha256Hex(token) },
  );
  return { taskId, token };
}

/** Ends a task as the server does when it finishes: its token dies with it. */
export async function endTask(kiln: TestServer, taskId: number): Promise<void> {
  await kiln.app.database.db
    .updateTable('ci_tasks')
    .set({ status: 'success', token_hash: null })
    .where('id', '=', taskId)
    .execute();
}
