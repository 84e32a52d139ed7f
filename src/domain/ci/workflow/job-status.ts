/**
 * Job statuses and the rules that move them, as Gitea numbers and applies them. Stored as names
 * (`pending` is Gitea's Waiting);
 * `GITEA_STATUS` gives Gitea's numbers (the first five equal runner.v1 `Result`).
 */
export type JobStatus =
  | 'unknown'
  | 'success'
  | 'failure'
  | 'cancelled'
  | 'skipped'
  | 'pending'
  | 'running'
  | 'blocked';

export const GITEA_STATUS: Readonly<Record<JobStatus, number>> = {
  unknown: 0,
  success: 1,
  failure: 2,
  cancelled: 3,
  skipped: 4,
  pending: 5,
  running: 6,
  blocked: 7,
};

/** Statuses a job does not leave again. */
export function isDone(status: JobStatus): boolean {
  return (
    status === 'success' || status === 'failure' || status === 'cancelled' || status === 'skipped'
  );
}

/**
 * The status of several jobs together (a run, or `needs.<id>.result` over a matrix):
 * all skipped → skipped; all success or skipped → success; any cancelled → cancelled; any
 * failure → failure; else running, then waiting, then blocked.
 */
export function aggregateStatus(statuses: readonly JobStatus[]): JobStatus {
  if (statuses.length === 0) return 'unknown';
  if (statuses.every((status) => status === 'skipped')) return 'skipped';
  if (statuses.every((status) => status === 'success' || status === 'skipped')) return 'success';
  if (statuses.includes('cancelled')) return 'cancelled';
  if (statuses.includes('failure')) return 'failure';
  if (statuses.includes('running')) return 'running';
  if (statuses.includes('pending')) return 'pending';
  if (statuses.includes('blocked')) return 'blocked';
  return 'unknown';
}

/** What the gating needs to know of a job of a run. */
export type GatedJob = {
  readonly key: string;
  readonly jobId: string;
  readonly needs: readonly string[];
  readonly hasIf: boolean;
  readonly status: JobStatus;
};

/**
 * Moves blocked jobs whose needs have all finished: every needed job succeeded → waiting; some
 * failed, was cancelled or skipped → waiting when the job has an `if:` (the runner evaluates it;
 * the server never does), otherwise skipped. Repeats until nothing changes, since a skip can
 * unblock the jobs after it. Returns the new status of each job that changed, by key.
 */
export function resolveBlocked(jobs: readonly GatedJob[]): Map<string, 'pending' | 'skipped'> {
  const status = new Map(jobs.map((job) => [job.key, job.status]));
  const changed = new Map<string, 'pending' | 'skipped'>();
  let moved = true;
  while (moved) {
    moved = false;
    for (const job of jobs) {
      if (status.get(job.key) !== 'blocked') continue;
      const needed = jobs.filter((other) => job.needs.includes(other.jobId));
      const neededStatuses = needed.map((other) => status.get(other.key) as JobStatus);
      if (!neededStatuses.every(isDone)) continue;
      const next =
        neededStatuses.every((s) => s === 'success') || job.hasIf ? 'pending' : 'skipped';
      status.set(job.key, next);
      changed.set(job.key, next);
      moved = true;
    }
  }
  return changed;
}
