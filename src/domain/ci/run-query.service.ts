import type { Db } from '../../db/database.ts';
import { NotFound } from '../errors.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository } from '../repos/repo.types.ts';
import type { User } from '../users/user.types.ts';
import type { CiTask, WorkflowRun } from './ci.types.ts';
import type { TaskLogStore } from './logs/task-log-store.ts';
import { toRun, toTask } from './workflow-run.store.ts';

/** A step row of a job, as the runner last reported it. */
export type JobStep = {
  readonly index: number;
  readonly name: string;
  readonly status: string;
  readonly startedAt: Date | null;
  readonly stoppedAt: Date | null;
};

/** A job with what a listing shows of it: its steps and the name of the runner that took it. */
export type JobView = CiTask & { readonly steps: readonly JobStep[]; readonly runnerName: string };

/** Most log rows one request returns as text. */
const MAX_LOG_ROWS = 200_000;

/**
 * Reading runs, jobs and logs of a repository the viewer may see (private ones are 404 to
 * outsiders, through `RepoService.get`). Runs are addressed by their per-repository number.
 */
export class RunQueryService {
  readonly #db: Db;
  readonly #repos: RepoService;
  readonly #logs: TaskLogStore;

  constructor(deps: { db: Db; repos: RepoService; logs: TaskLogStore }) {
    this.#db = deps.db;
    this.#repos = deps.repos;
    this.#logs = deps.logs;
  }

  async #repo(viewer: User | undefined, owner: string, name: string): Promise<Repository> {
    return (await this.#repos.get(viewer, owner, name)).repo;
  }

  /** Runs newest first, with the total. */
  async listRuns(
    viewer: User | undefined,
    owner: string,
    name: string,
    page: { limit: number; offset: number },
  ): Promise<{ repo: Repository; runs: WorkflowRun[]; total: number }> {
    const repo = await this.#repo(viewer, owner, name);
    const rows = await this.#db
      .selectFrom('workflow_runs')
      .selectAll()
      .where('repo_id', '=', repo.id)
      .orderBy('number', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    const count = await this.#db
      .selectFrom('workflow_runs')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where('repo_id', '=', repo.id)
      .executeTakeFirstOrThrow();
    return { repo, runs: rows.map(toRun), total: Number(count.total) };
  }

  /** @throws NotFound for an unknown run number. */
  async getRun(viewer: User | undefined, owner: string, name: string, number: number) {
    const repo = await this.#repo(viewer, owner, name);
    const row = await this.#db
      .selectFrom('workflow_runs')
      .selectAll()
      .where('repo_id', '=', repo.id)
      .where('number', '=', number)
      .executeTakeFirst();
    if (row === undefined) throw new NotFound('workflow run not found');
    return { repo, run: toRun(row) };
  }

  /** The jobs of a run in workflow order, with their steps. */
  async listJobs(viewer: User | undefined, owner: string, name: string, number: number) {
    const { repo, run } = await this.getRun(viewer, owner, name, number);
    const rows = await this.#db
      .selectFrom('ci_tasks')
      .leftJoin('runners', 'runners.id', 'ci_tasks.runner_id')
      .selectAll('ci_tasks')
      .select('runners.name as runner_name')
      .where('run_id', '=', run.id)
      .orderBy('ci_tasks.id')
      .execute();
    return { repo, run, jobs: await this.#withSteps(rows) };
  }

  /** One job of the repository, by its id. @throws NotFound */
  async getJob(viewer: User | undefined, owner: string, name: string, jobId: number) {
    const repo = await this.#repo(viewer, owner, name);
    const row = await this.#db
      .selectFrom('ci_tasks')
      .innerJoin('workflow_runs', 'workflow_runs.id', 'ci_tasks.run_id')
      .leftJoin('runners', 'runners.id', 'ci_tasks.runner_id')
      .selectAll('ci_tasks')
      .select('runners.name as runner_name')
      .where('ci_tasks.id', '=', jobId)
      .where('workflow_runs.repo_id', '=', repo.id)
      .executeTakeFirst();
    if (row === undefined) throw new NotFound('job not found');
    const [job] = await this.#withSteps([row]);
    const runRow = await this.#db
      .selectFrom('workflow_runs')
      .selectAll()
      .where('id', '=', row.run_id)
      .executeTakeFirstOrThrow();
    return { repo, run: toRun(runRow), job: job as JobView };
  }

  /** A job's log rows `from` … `from + limit - 1`, as stored lines (time, space, content). */
  async jobLog(
    viewer: User | undefined,
    owner: string,
    name: string,
    jobId: number,
    window: { from?: number; limit?: number } = {},
  ): Promise<string[]> {
    await this.getJob(viewer, owner, name, jobId);
    return this.#logs.readRows(
      jobId,
      window.from ?? 0,
      Math.min(window.limit ?? MAX_LOG_ROWS, MAX_LOG_ROWS),
    );
  }

  async #withSteps(
    rows: readonly (Parameters<typeof toTask>[0] & { runner_name: string | null })[],
  ): Promise<JobView[]> {
    const ids = rows.map((row) => Number(row.id));
    const steps =
      ids.length === 0
        ? []
        : await this.#db
            .selectFrom('ci_task_steps')
            .selectAll()
            .where('task_id', 'in', ids)
            .orderBy('step_index')
            .execute();
    return rows.map((row) => ({
      ...toTask(row),
      runnerName: row.runner_name ?? '',
      steps: steps
        .filter((step) => Number(step.task_id) === Number(row.id))
        .map((step) => ({
          index: Number(step.step_index),
          name: step.name,
          status: step.status,
          startedAt: step.started_at === null ? null : new Date(Number(step.started_at)),
          stoppedAt: step.stopped_at === null ? null : new Date(Number(step.stopped_at)),
        })),
    }));
  }
}
