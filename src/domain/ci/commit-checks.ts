import type { WorkflowRun, WorkflowRunStatus } from './ci.types.ts';

/** What a commit's CI amounts to: one status and the run to look at for it. */
export type CommitCheck = {
  /** `RUNNING` while any run is unfinished, else `FAILURE` if any failed or was cancelled. */
  readonly status: WorkflowRunStatus;
  /** The per-repository number of the run that decided the status. */
  readonly runNumber: number;
};

const UNFINISHED: readonly WorkflowRunStatus[] = ['PENDING', 'BLOCKED', 'RUNNING'];
const FAILED: readonly WorkflowRunStatus[] = ['FAILURE', 'CANCELLED'];

/**
 * Each commit's check from its runs: only the newest run of each workflow file counts (a re-run
 * or a later trigger replaces the earlier verdict), then unfinished beats failed beats passed, and
 * the link goes to the newest run with the winning status. Commits without runs are absent. Pure.
 *
 * @example
 * commitChecks([{ sha: 'a', workflowFile: 'ci.yml', number: 2, status: 'SUCCESS' }, …])
 */
export function commitChecks(
  runs: readonly Pick<WorkflowRun, 'sha' | 'workflowFile' | 'number' | 'status'>[],
): Map<string, CommitCheck> {
  const newest = new Map<string, Pick<WorkflowRun, 'sha' | 'number' | 'status'>>();
  for (const run of runs) {
    const key = `${run.sha}\u0000${run.workflowFile}`;
    const known = newest.get(key);
    if (known === undefined || known.number < run.number) newest.set(key, run);
  }
  const checks = new Map<string, CommitCheck>();
  for (const run of [...newest.values()].sort((a, b) => b.number - a.number)) {
    const known = checks.get(run.sha);
    if (known === undefined || rank(run.status) > rank(known.status)) {
      checks.set(run.sha, { status: combined(run.status), runNumber: run.number });
    }
  }
  return checks;
}

function rank(status: WorkflowRunStatus): number {
  if (UNFINISHED.includes(status)) return 2;
  if (FAILED.includes(status)) return 1;
  return 0;
}

function combined(status: WorkflowRunStatus): WorkflowRunStatus {
  if (UNFINISHED.includes(status)) return 'RUNNING';
  if (FAILED.includes(status)) return 'FAILURE';
  return status === 'SKIPPED' ? 'SKIPPED' : 'SUCCESS';
}
