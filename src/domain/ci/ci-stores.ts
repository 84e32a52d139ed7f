import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.ts';
import { AnnotationStore } from './annotations/annotation.store.ts';
import { CiJobStore } from './ci-job.store.ts';
import { CiTaskStore } from './ci-task.store.ts';
import { JobGroupStore } from './job-group.store.ts';
import { PullApprovalStore } from './pull-approval.store.ts';
import { TaskReportStore } from './task-report.store.ts';
import { TaskRunnerStore } from './task-runner.store.ts';
import { TasksVersionStore } from './tasks-version.store.ts';
import { WorkflowRunStore } from './workflow-run.store.ts';

/**
 * The stores of the runs aggregate over one connection or one transaction, so that a change
 * spanning runs, jobs, runners and `tasks_version` (a claim, a settle, a sweep) commits whole.
 * Built once in the composition root; services open transactions through `transaction` and never
 * see the database itself.
 */
export class CiStores {
  readonly runs: WorkflowRunStore;
  readonly jobs: CiJobStore;
  readonly tasks: CiTaskStore;
  readonly taskRunners: TaskRunnerStore;
  readonly reports: TaskReportStore;
  readonly versions: TasksVersionStore;
  readonly groups: JobGroupStore;
  readonly approvals: PullApprovalStore;
  readonly annotations: AnnotationStore;
  readonly #db: Kysely<Tables>;

  constructor(db: Kysely<Tables>) {
    this.#db = db;
    this.runs = new WorkflowRunStore(db);
    this.jobs = new CiJobStore(db);
    this.tasks = new CiTaskStore(db);
    this.taskRunners = new TaskRunnerStore(db);
    this.reports = new TaskReportStore(db);
    this.versions = new TasksVersionStore(db);
    this.groups = new JobGroupStore(db);
    this.approvals = new PullApprovalStore(db);
    this.annotations = new AnnotationStore(db);
  }

  /** Runs `work` in a transaction; inside one already, in that one. */
  transaction<T>(work: (stores: CiStores) => Promise<T>): Promise<T> {
    if (this.#db.isTransaction) return work(this);
    return this.#db.transaction().execute((trx) => work(new CiStores(trx)));
  }
}
