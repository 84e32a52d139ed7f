import type { CiTaskStatus, WorkflowRunStatus } from '../../db/tables.ts';

export type { CiTaskStatus, WorkflowRunStatus };

/** Final task outcomes, as a runner reports them (runner.v1 Result without UNSPECIFIED). */
export type CiTaskResult = 'success' | 'failure' | 'cancelled' | 'skipped';

export type WorkflowRun = {
  readonly id: string;
  readonly repoId: string;
  /** Per-repository sequential number, from 1. */
  readonly number: number;
  readonly workflowName: string;
  readonly workflowFile: string;
  readonly event: string;
  readonly ref: string;
  readonly sha: string;
  readonly triggeredBy: string | null;
  readonly status: WorkflowRunStatus;
  readonly createdAt: Date;
  readonly startedAt: Date | null;
  readonly stoppedAt: Date | null;
  readonly updatedAt: Date;
  /** First line of the head commit's message. */
  readonly title: string;
  /** The event as a webhook would carry it. */
  readonly eventPayload: unknown;
  /** Login of the user who triggered the run. */
  readonly actor: string;
  readonly headRef: string;
  readonly baseRef: string;
  /** A pull request from a fork: no secrets but the task token. */
  readonly forkPull: boolean;
  /** Why the run could not start (a workflow that does not parse), else null. */
  readonly error: string | null;
  readonly concurrencyGroup: string | null;
  /** Waits for the unfinished run of its `concurrency` group to end (its jobs stay blocked). */
  readonly concurrencyQueued: boolean;
  /** The pull request a `pull_request` run was made for (its id), else null. */
  readonly pullId: string | null;
  /** Had to wait for a writer's approval (fork-approval.ts); it still does while `approvedAt` is null. */
  readonly needsApproval: boolean;
  /** The id of who approved it, and when. */
  readonly approvedBy: string | null;
  readonly approvedAt: Date | null;
  /** 1, then one more per re-run (GitHub's `run_attempt`). */
  readonly attempt: number;
  /** The workflow calls its jobs were expanded from, as stored (call-frames.ts reads them). */
  readonly calls: unknown;
};

export type CiTask = {
  /** Surrogate int64 handed to runners; never reused. */
  readonly id: number;
  readonly runId: string;
  readonly name: string;
  readonly runsOn: readonly string[];
  readonly needs: readonly string[];
  readonly jobKey: string;
  readonly runnerId: string | null;
  readonly status: CiTaskStatus;
  readonly logRows: number;
  readonly deadlineAt: Date | null;
  readonly createdAt: Date;
  readonly startedAt: Date | null;
  readonly stoppedAt: Date | null;
  /** The single-job workflow document handed to the runner. */
  readonly payload: string;
  /** The run attempt the job last ran in (0 before its first re-run, read as 1). */
  readonly attempt: number;
  readonly hasIf: boolean;
  readonly stepNames: readonly string[];
  readonly logSealed: boolean;
  /** The job's `concurrency` group, evaluated when the run was created, or null. */
  readonly concurrencyGroup: string | null;
  readonly concurrencyCancel: boolean;
  /** Blocked until its `concurrency` group has no pending or running job left. */
  readonly concurrencyQueued: boolean;
};
