import type { Db } from '../../db/database.ts';
import { NotFound } from '../errors.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository } from '../repos/repo.types.ts';
import type { User } from '../users/user.types.ts';
import type { CiTask, WorkflowRun, WorkflowRunStatus } from './ci.types.ts';
import type { TaskLogStore } from './logs/task-log-store.ts';
import { toRun, toTask } from './workflow-run.store.ts';

/** A step row of a job, as the runner last reported it. */
export type JobStep = {
  readonly index: number;
  readonly name: string;
  readonly status: string;
  readonly startedAt: Date | null;
  readonly stoppedAt: Date | null;
  /** The step's first row in the job's log, and how many rows it wrote. */
  readonly logIndex: number;
  readonly logLength: number;
};

/** Which runs a listing keeps: one workflow file, one status, or both. */
export type RunFilter = { readonly workflowFile?: string; readonly status?: WorkflowRunStatus };

/** The last rows of a job's log: rows `from` … `from + rows.length - 1` of `total`. */
export type LogTail = { readonly from: number; readonly total: number; readonly rows: string[] };

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

  /** Runs newest first, with the total; `filter` keeps one workflow and/or one status. */
  async listRuns(
    viewer: User | undefined,
    owner: string,
    name: string,
    page: { limit: number; offset: number },
    filter: RunFilter = {},
  ): Promise<{ repo: Repository; runs: WorkflowRun[]; total: number }> {
    const repo = await this.#repo(viewer, owner, name);
    let query = this.#db.selectFrom('workflow_runs').where('repo_id', '=', repo.id);
    if (filter.workflowFile !== undefined) {
      query = query.where('workflow_file', '=', filter.workflowFile);
    }
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    const rows = await query
      .selectAll()
      .orderBy('number', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    const count = await query
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow();
    return { repo, runs: rows.map(toRun), total: Number(count.total) };
  }

  /** The workflow files that have runs in the repository, with their latest names, by file. */
  async listWorkflows(
    viewer: User | undefined,
    owner: string,
    name: string,
  ): Promise<{ file: string; name: string }[]> {
    const repo = await this.#repo(viewer, owner, name);
    const rows = await this.#db
      .selectFrom('workflow_runs')
      .select(['workflow_file', 'workflow_name', 'number'])
      .where('repo_id', '=', repo.id)
      .orderBy('number', 'desc')
      .execute();
    const names = new Map<string, string>();
    for (const row of rows) {
      if (!names.has(row.workflow_file)) names.set(row.workflow_file, row.workflow_name);
    }
    return [...names]
      .map(([file, workflowName]) => ({ file, name: workflowName }))
      .sort((a, b) => a.file.localeCompare(b.file));
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

  /**
   * The last `maxRows` rows of a job's log (all of it when shorter), so a page never holds more
   * than a bounded number of lines however long the job ran.
   */
  async jobLogTail(
    viewer: User | undefined,
    owner: string,
    name: string,
    jobId: number,
    maxRows: number,
  ): Promise<LogTail> {
    await this.getJob(viewer, owner, name, jobId);
    const total = await this.#logs.rowCount(jobId);
    const from = Math.max(0, total - Math.min(maxRows, MAX_LOG_ROWS));
    return { from, total, rows: await this.#logs.readRows(jobId, from, total - from) };
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
          logIndex: Number(step.log_index),
          logLength: Number(step.log_length),
        })),
    }));
  }
}
