import { Conflict, NotFound } from '../errors.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { User } from '../users/user.types.ts';
import type { CiTask, WorkflowRun } from './ci.types.ts';
import type { CiStores } from './ci-stores.ts';
import { awaitsApproval } from './fork-approval.ts';
import type { TaskLogs } from './logs/task-logs.ts';
import type { RunLifecycle } from './run-lifecycle.ts';
import type { RunQueryService } from './run-query.service.ts';

/** What a re-run starts over: the whole run, its failed jobs, or one job. */
export type RerunTarget =
  | { readonly kind: 'run' }
  | { readonly kind: 'failed' }
  | { readonly kind: 'job'; readonly jobId: number };

const FAILED = new Set(['failure', 'cancelled']);

/**
 * Re-running a finished workflow run as a new attempt, on a writer's request: the chosen jobs,
 * and every job that needs one of them (directly or not), start over with fresh tokens, steps,
 * outputs and logs; jobs with needs wait behind them again. Jobs left alone keep their results,
 * which `needs` still reads. A run still going is refused (Conflict): cancel it first. Readers are
 * refused (Forbidden), outsiders of a private repository never learn it exists (NotFound).
 */
export type RunRerunDeps = {
  readonly repos: RepoService;
  readonly queries: RunQueryService;
  readonly stores: CiStores;
  readonly lifecycle: RunLifecycle;
  readonly logs: TaskLogs;
};

export class RunRerunService {
  readonly #deps: RunRerunDeps;

  constructor(deps: RunRerunDeps) {
    this.#deps = deps;
  }

  /**
   * Starts `target` of run `number` over; returns the run as it is afterwards.
   * @throws NotFound, Forbidden, Conflict (the run is unfinished, or nothing to re-run)
   */
  async rerun(
    user: User,
    owner: string,
    name: string,
    number: number,
    target: RerunTarget,
  ): Promise<WorkflowRun> {
    const { repos, queries, stores, lifecycle, logs } = this.#deps;
    await repos.require(user, owner, name, 'write');
    const { run } = await queries.getRun(user, owner, name, number);
    const now = Date.now();
    const restarted = await stores.transaction(async (tx) => {
      const jobs = await tx.jobs.listOfRun(run.id);
      if (jobs.some((job) => ['pending', 'blocked', 'running'].includes(job.status))) {
        throw new Conflict('the run has not finished; cancel it before re-running it');
      }
      const chosen = withDependents(jobs, chosenJobs(jobs, target));
      if (chosen.length === 0) throw new Conflict('no job of the run to re-run');
      const keys = new Set(chosen.map((job) => job.jobKey));
      // A job waits when something it needs is re-run too, to be admitted to its `concurrency`
      // group by the settle below, or while its run still waits for approval (a re-run is no
      // approval: fork-approval.ts); otherwise it may start at once.
      const held = awaitsApproval(run);
      const statuses = new Map(
        chosen.map((job) => [
          job.id,
          held || job.needs.some((need) => keys.has(need)) || job.concurrencyGroup !== null
            ? ('blocked' as const)
            : ('pending' as const),
        ]),
      );
      const attempt = await tx.runs.restart(run.id, now);
      const ids = await tx.jobs.restart(statuses, attempt, now);
      await lifecycle.reopened(tx, run.id, now);
      return ids;
    });
    for (const taskId of restarted) await logs.remove(taskId);
    return (await queries.getRun(user, owner, name, number)).run;
  }
}

/**
 * The jobs the target names. Failed means failed or cancelled: the legs of a matrix share their
 * job key, so the choice is by job, never by key, and a leg that passed keeps its result.
 */
function chosenJobs(jobs: readonly CiTask[], target: RerunTarget): CiTask[] {
  if (target.kind === 'run') return [...jobs];
  if (target.kind === 'failed') return jobs.filter((job) => FAILED.has(job.status));
  const job = jobs.find((candidate) => candidate.id === target.jobId);
  if (job === undefined) throw new NotFound('job not found');
  return [job];
}

/**
 * The chosen jobs and every job that needs one of them, directly or through others. A job needs
 * every leg of a matrix by its key, so a dependent is found by key; the chosen jobs themselves
 * are kept by id (their passed matrix siblings stay as they are).
 */
function withDependents(jobs: readonly CiTask[], chosen: readonly CiTask[]): CiTask[] {
  const ids = new Set(chosen.map((job) => job.id));
  const keys = new Set(chosen.map((job) => job.jobKey));
  let grew = true;
  while (grew) {
    grew = false;
    for (const job of jobs) {
      if (!ids.has(job.id) && job.needs.some((need) => keys.has(need))) {
        ids.add(job.id);
        keys.add(job.jobKey);
        grew = true;
      }
    }
  }
  return jobs.filter((job) => ids.has(job.id));
}
