import type { Readable } from 'node:stream';
import { NotFound } from '../errors.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository } from '../repos/repo.types.ts';
import type { User } from '../users/user.types.ts';
import type { AnnotationStore } from './annotations/annotation.store.ts';
import type { Annotation, RunAnnotation } from './annotations/annotation.types.ts';
import type { WorkflowRun } from './ci.types.ts';
import type { CiJobStore, JobStep, JobView } from './ci-job.store.ts';
import { type CommitCheck, commitChecks } from './commit-checks.ts';
import type { LogWindow, TaskLogs } from './logs/task-logs.ts';
import type { RunFilter, WorkflowRunStore } from './workflow-run.store.ts';

export type { Annotation, CommitCheck, JobStep, JobView, RunAnnotation, RunFilter };

/** The most annotations a run's or a commit's page lists (a job keeps at most 150). */
const MAX_LISTED_ANNOTATIONS = 300;

/** Rows of a job's log: rows `from` … `from + count - 1` of `total` (`LogWindow`). */
export type LogTail = LogWindow;

/**
 * Reading runs, jobs and logs of a repository the viewer may see (private ones are 404 to
 * outsiders, through `RepoService.get`). Runs are addressed by their per-repository number.
 */
export class RunQueryService {
  readonly #runs: WorkflowRunStore;
  readonly #jobs: CiJobStore;
  readonly #repos: RepoService;
  readonly #logs: TaskLogs;
  readonly #annotations: AnnotationStore;

  constructor(deps: {
    runs: WorkflowRunStore;
    jobs: CiJobStore;
    repos: RepoService;
    logs: TaskLogs;
    annotations: AnnotationStore;
  }) {
    this.#annotations = deps.annotations;
    this.#runs = deps.runs;
    this.#jobs = deps.jobs;
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
    return { repo, ...(await this.#runs.list(repo.id, page, filter)) };
  }

  /** The workflow files that have runs in the repository, with their latest names, by file. */
  async listWorkflows(
    viewer: User | undefined,
    owner: string,
    name: string,
  ): Promise<{ file: string; name: string }[]> {
    const repo = await this.#repo(viewer, owner, name);
    const rows = await this.#runs.listWorkflowNames(repo.id);
    const names = new Map<string, string>();
    for (const row of rows) {
      if (!names.has(row.file)) names.set(row.file, row.name);
    }
    return [...names]
      .map(([file, workflowName]) => ({ file, name: workflowName }))
      .sort((a, b) => a.file.localeCompare(b.file));
  }

  /**
   * The CI check of each commit that has runs (commit-checks.ts), for pages listing commits of a
   * repository the caller has already found visible to the viewer.
   */
  async commitChecks(repo: Repository, shas: readonly string[]): Promise<Map<string, CommitCheck>> {
    return commitChecks(await this.#runs.verdictsForShas(repo.id, shas));
  }

  /** @throws NotFound for an unknown run number. */
  async getRun(viewer: User | undefined, owner: string, name: string, number: number) {
    const repo = await this.#repo(viewer, owner, name);
    const run = await this.#runs.findByNumber(repo.id, number);
    if (run === undefined) throw new NotFound('workflow run not found');
    return { repo, run };
  }

  /** The jobs of a run in workflow order, with their steps. */
  async listJobs(viewer: User | undefined, owner: string, name: string, number: number) {
    const { repo, run } = await this.getRun(viewer, owner, name, number);
    return { repo, run, jobs: await this.#jobs.listViews(run.id) };
  }

  /** The annotations of a job the caller has already found visible, as printed. */
  async jobAnnotations(job: { readonly id: number }): Promise<Annotation[]> {
    return this.#annotations.listOfTask(job.id);
  }

  /** The annotations of the jobs of a run the caller has already found visible (bounded). */
  async runAnnotations(run: { readonly id: string }): Promise<RunAnnotation[]> {
    return this.#annotations.listOfRuns([run.id], MAX_LISTED_ANNOTATIONS);
  }

  /**
   * The annotations of the runs of a commit, for a page about a repository the caller has
   * already found visible (a pull request's files at its head): bounded.
   */
  async commitAnnotations(repo: Repository, sha: string): Promise<RunAnnotation[]> {
    const runs = await this.#runs.listForShas(repo.id, [sha]);
    return this.#annotations.listOfRuns(
      runs.map((run) => run.id),
      MAX_LISTED_ANNOTATIONS,
    );
  }

  /** One job of the repository, by its id. @throws NotFound */
  async getJob(viewer: User | undefined, owner: string, name: string, jobId: number) {
    const repo = await this.#repo(viewer, owner, name);
    const job = await this.#jobs.findView(repo.id, jobId);
    if (job === undefined) throw new NotFound('job not found');
    const run: WorkflowRun | undefined = await this.#runs.findById(job.runId);
    if (run === undefined) throw new NotFound('job not found');
    return { repo, run, job };
  }

  /**
   * A window of a job's log for a page (`TaskLogs.readWindow`): from row `from` forwards, or
   * the rows before row `before`, the newest when neither is given; bounded in rows and bytes.
   */
  async jobLogWindow(
    viewer: User | undefined,
    owner: string,
    name: string,
    jobId: number,
    at: { readonly from?: number; readonly before?: number },
    bounds: { readonly maxRows: number; readonly maxBytes: number },
  ): Promise<LogTail> {
    await this.getJob(viewer, owner, name, jobId);
    return this.logWindowOf({ id: jobId }, at, bounds);
  }

  /**
   * A window of the log of a job the caller has already found visible (`getJob`), as
   * `jobLogWindow` reads it: a page that found its job reads it once, not twice.
   */
  async logWindowOf(
    job: { readonly id: number },
    at: { readonly from?: number; readonly before?: number },
    bounds: { readonly maxRows: number; readonly maxBytes: number },
  ): Promise<LogTail> {
    const where =
      at.from !== undefined ? { from: at.from } : { before: at.before ?? Number.MAX_SAFE_INTEGER };
    return this.#logs.readWindow(job.id, where, bounds.maxRows, bounds.maxBytes);
  }

  /** A job's whole log as stored lines (time, space, content), streamed from storage. */
  async jobLogStream(
    viewer: User | undefined,
    owner: string,
    name: string,
    jobId: number,
  ): Promise<Readable> {
    await this.getJob(viewer, owner, name, jobId);
    return this.#logs.rawLog(jobId);
  }
}
