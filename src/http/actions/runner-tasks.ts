/**
 * What the runner protocol edge needs from the domain to hand out tasks and take reports
 * (FetchTask, UpdateTask, UpdateLog): plain records in, plain records out, no wire types.
 */
import type { CiTaskResult, CiTaskStatus } from '../../domain/ci/ci.types.ts';
import type { RunnerRecord } from './runner-registry.ts';

/** A job status name: the domain's task statuses, and `unknown` for a status not known. */
export type JobStatusName = 'unknown' | CiTaskStatus;

/** A final result as a runner reports it. */
export type TaskResultName = CiTaskResult;

export interface TaskRecord {
  readonly id: number;
  readonly workflowPayload: string;
  readonly context: Record<string, unknown>;
  readonly secrets: Readonly<Record<string, string>>;
  readonly vars: Readonly<Record<string, string>>;
  readonly needs: Readonly<
    Record<
      string,
      { readonly outputs: Readonly<Record<string, string>>; readonly result: JobStatusName }
    >
  >;
}

export interface StepReportInput {
  readonly id: number;
  readonly result: TaskResultName | undefined;
  readonly startedAt: Date | undefined;
  readonly stoppedAt: Date | undefined;
  readonly logIndex: number;
  readonly logLength: number;
}

export interface RunnerTasks {
  /**
   * The next task for the runner, if any, and the scope's current `tasks_version` (never 0).
   * `baseUrl` is the instance's external address, for the task's context.
   */
  fetchTask(
    runner: RunnerRecord,
    knownVersion: number,
    baseUrl: string,
  ): Promise<{ readonly task: TaskRecord | undefined; readonly tasksVersion: number }>;

  /**
   * Records a report; answers the stored status (`running` while it runs) and every output key
   * stored. Throws `Forbidden` when the task is not the runner's.
   */
  updateTask(
    runner: RunnerRecord,
    report: {
      readonly taskId: number;
      readonly result: TaskResultName | undefined;
      readonly steps: readonly StepReportInput[];
      readonly outputs: Readonly<Record<string, string>>;
    },
  ): Promise<{ readonly status: JobStatusName; readonly sentOutputs: readonly string[] }>;

  /** Stores log rows; answers the number of rows stored (`ack_index`). */
  updateLog(
    runner: RunnerRecord,
    taskId: number,
    index: number,
    rows: readonly { readonly time: Date; readonly content: string }[],
    noMore: boolean,
  ): Promise<number>;
}
