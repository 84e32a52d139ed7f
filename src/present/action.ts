import type { WorkflowRun } from '../domain/ci/ci.types.ts';
import { awaitsApproval } from '../domain/ci/fork-approval.ts';
import type { JobView } from '../domain/ci/run-query.service.ts';
import type { Repository } from '../domain/repos/repo.types.ts';
import { foldId } from '../lib/ids.ts';
import { rfc3339 } from '../lib/time.ts';
import { repoPathOf } from './branch.ts';
import type { ApiActionWorkflowJob, ApiActionWorkflowRun } from './schemas/action.ts';

/**
 * A job or run status as GitHub and Gitea 1.24 show it: `status` queued / waiting / in_progress /
 * completed, and for a completed one its `conclusion`.
 */
export function toActionsStatus(status: string): { status: string; conclusion: string | null } {
  switch (status.toLowerCase()) {
    case 'pending':
    case 'unknown':
      return { status: 'queued', conclusion: null };
    case 'blocked':
      return { status: 'waiting', conclusion: null };
    case 'running':
      return { status: 'in_progress', conclusion: null };
    default:
      return { status: 'completed', conclusion: status.toLowerCase() };
  }
}

/**
 * A run's status: a run from a fork that waits for a writer's approval is what GitHub shows for
 * it, `completed` with the conclusion `action_required`, until it is approved and queued.
 */
function runStatus(run: WorkflowRun): { status: string; conclusion: string | null } {
  const shown = toActionsStatus(run.status);
  return awaitsApproval(run) && shown.status !== 'completed'
    ? { status: 'completed', conclusion: 'action_required' }
    : shown;
}

const date = (value: Date | null) => (value === null ? null : rfc3339(value));

function branchOf(ref: string): string {
  return ref.replace(/^refs\/(heads|tags)\//, '');
}

/** `ActionWorkflowRun`; runs are addressed by their per-repository number, which is the `id`. */
export function toApiWorkflowRun(
  run: WorkflowRun,
  repo: Repository,
  baseUrl: string,
): ApiActionWorkflowRun {
  const path = repoPathOf(repo);
  return {
    id: run.number,
    url: `${baseUrl}/api/v1/repos/${path}/actions/runs/${run.number}`,
    html_url: `${baseUrl}/repos/${path}/actions/runs/${run.number}`,
    display_title: run.title,
    path: `${run.workflowFile}@${run.ref}`,
    event: run.event,
    run_attempt: run.attempt,
    run_number: run.number,
    run_started_at: date(run.startedAt),
    head_branch: branchOf(run.ref),
    head_sha: run.sha,
    ...runStatus(run),
    repository_id: foldId(repo.id),
    created_at: rfc3339(run.createdAt),
    updated_at: rfc3339(run.updatedAt),
    completed_at: date(run.stoppedAt),
    error: run.error,
  };
}

/** `ActionWorkflowJob`, its `id` the job's own (the task id a runner saw). */
export function toApiWorkflowJob(
  job: JobView,
  run: WorkflowRun,
  repo: Repository,
  baseUrl: string,
): ApiActionWorkflowJob {
  const path = repoPathOf(repo);
  return {
    id: job.id,
    url: `${baseUrl}/api/v1/repos/${path}/actions/jobs/${job.id}`,
    html_url: `${baseUrl}/repos/${path}/actions/runs/${run.number}/jobs/${job.id}`,
    run_id: run.number,
    run_url: `${baseUrl}/api/v1/repos/${path}/actions/runs/${run.number}`,
    name: job.name,
    labels: [...job.runsOn],
    run_attempt: Math.max(1, job.attempt),
    head_sha: run.sha,
    head_branch: branchOf(run.ref),
    ...toActionsStatus(job.status),
    runner_name: job.runnerName,
    steps: job.steps.map((step) => ({
      name: step.name,
      number: step.index + 1,
      ...toActionsStatus(step.status),
      started_at: date(step.startedAt),
      completed_at: date(step.stoppedAt),
    })),
    created_at: rfc3339(job.createdAt),
    started_at: date(job.startedAt),
    completed_at: date(job.stoppedAt),
  };
}
