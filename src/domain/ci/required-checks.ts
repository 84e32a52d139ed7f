import {
  type CheckGlob,
  CheckGlobError,
  compileCheckGlob,
  type MatchBudget,
  matchBudget,
  matchesCheckGlob,
} from './check-glob.ts';
import type { CiTaskStatus } from './ci.types.ts';

/** A check's state in Gitea's commit-status words. */
export type CheckState = 'success' | 'failure' | 'pending';

/** One job of a run for a commit, as the gate reads it (`CommitCheckStore`). */
export type CommitJob = {
  readonly runNumber: number;
  readonly workflowName: string;
  readonly event: string;
  readonly jobId: number;
  readonly jobName: string;
  readonly status: CiTaskStatus;
};

/** A check of a commit: the newest job of one context. */
export type CommitCheckResult = {
  readonly context: string;
  readonly state: CheckState;
  readonly runNumber: number;
  readonly jobId: number;
};

/** One required pattern and what it found: the matching checks, or none (then pending). */
export type RequiredCheck = {
  readonly pattern: string;
  readonly state: CheckState;
  readonly matches: readonly CommitCheckResult[];
};

/** Events whose jobs report on a commit, as Gitea creates commit statuses for them. */
const REPORTING_EVENTS = new Set(['push', 'pull_request', 'pull_request_target', 'release']);

/**
 * A job's context as Gitea names its commit status: `{workflow name} / {job name} ({event})`,
 * trimmed (the workflow's `name:`, else its file name).
 */
export function checkContext(workflowName: string, jobName: string, event: string): string {
  return `${workflowName} / ${jobName} (${event})`.trim();
}

/** Gitea's state for a job: skipped counts as success, cancelled as failure. */
export function checkStateOf(status: CiTaskStatus): CheckState {
  if (status === 'success' || status === 'skipped') return 'success';
  if (status === 'failure' || status === 'cancelled') return 'failure';
  return 'pending';
}

/**
 * The checks of a commit: for each context, the job of the newest run (a re-run or a later
 * trigger replaces the verdict, as a newer commit status does in Gitea). Runs of events that
 * report no status (schedule, workflow_dispatch) are left out. Pure.
 */
export function commitCheckResults(jobs: readonly CommitJob[]): CommitCheckResult[] {
  const newest = new Map<string, CommitCheckResult>();
  for (const job of jobs) {
    if (!REPORTING_EVENTS.has(job.event)) continue;
    const context = checkContext(job.workflowName, job.jobName, job.event);
    const known = newest.get(context);
    const newer =
      known !== undefined &&
      (known.runNumber > job.runNumber ||
        (known.runNumber === job.runNumber && known.jobId > job.jobId));
    if (newer) continue;
    const { runNumber, jobId } = job;
    newest.set(context, { context, state: checkStateOf(job.status), runNumber, jobId });
  }
  return [...newest.values()].sort((a, b) => a.context.localeCompare(b.context));
}

/** Worst first: one failure fails, else one pending keeps waiting. */
function worst(states: readonly CheckState[]): CheckState {
  if (states.includes('failure')) return 'failure';
  if (states.includes('pending') || states.length === 0) return 'pending';
  return 'success';
}

/**
 * What each required pattern finds among a commit's checks. With no patterns every check
 * counts and a commit without any is pending; a pattern that matches no check is pending (a
 * check that has not reported is not a success), and one that does not compile matches nothing,
 * so a stored rule that became invalid holds merges rather than letting them through. Pure.
 */
export function requiredChecks(
  patterns: readonly string[],
  checks: readonly CommitCheckResult[],
  budget: MatchBudget = matchBudget(),
): RequiredCheck[] {
  if (patterns.length === 0) {
    return [{ pattern: '*', state: worst(checks.map((c) => c.state)), matches: checks }];
  }
  return patterns.map((pattern) => {
    const glob = compiledOrUndefined(pattern);
    const matches = glob ? checks.filter((c) => matchesCheckGlob(glob, c.context, budget)) : [];
    return { pattern, state: worst(matches.map((c) => c.state)), matches };
  });
}

/** Whether every required check has succeeded. */
export function allRequiredPassed(required: readonly RequiredCheck[]): boolean {
  return required.every((check) => check.state === 'success');
}

function compiledOrUndefined(pattern: string): CheckGlob | undefined {
  try {
    return compileCheckGlob(pattern);
  } catch (error) {
    if (error instanceof CheckGlobError) return undefined;
    throw error;
  }
}
