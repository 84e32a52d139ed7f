import type { JsonObject } from '@bufbuild/protobuf';
import { create } from '@bufbuild/protobuf';
import { type Timestamp, timestampDate } from '@bufbuild/protobuf/wkt';
import {
  type LogRow,
  Result,
  type StepState,
  type Task,
  type TaskNeed,
  TaskNeedSchema,
  TaskSchema,
} from '../../gen/runner/v1/messages_pb.js';
import type { JobStatusName, StepReportInput, TaskRecord, TaskResultName } from './runner-tasks.ts';

/**
 * A stored status as `runner.v1.Result`: UNSPECIFIED while the job is not finished (anything else
 * makes a runner cancel the task), CANCELLED for a cancelled one, else the final result.
 */
export function toWireResult(status: JobStatusName): Result {
  switch (status) {
    case 'success':
      return Result.SUCCESS;
    case 'failure':
      return Result.FAILURE;
    case 'cancelled':
      return Result.CANCELLED;
    case 'skipped':
      return Result.SKIPPED;
    default:
      return Result.UNSPECIFIED;
  }
}

/** A result a runner reports; undefined for UNSPECIFIED (still running) and unknown values. */
export function fromWireResult(result: Result): TaskResultName | undefined {
  switch (result) {
    case Result.SUCCESS:
      return 'success';
    case Result.FAILURE:
      return 'failure';
    case Result.CANCELLED:
      return 'cancelled';
    case Result.SKIPPED:
      return 'skipped';
    default:
      return undefined;
  }
}

/** The `runner.v1.Task` message for a task record. Pure. */
export function toTaskMessage(task: TaskRecord): Task {
  const needs: Record<string, TaskNeed> = {};
  for (const [jobId, need] of Object.entries(task.needs)) {
    needs[jobId] = create(TaskNeedSchema, {
      outputs: { ...need.outputs },
      result: toWireResult(need.result),
    });
  }
  return create(TaskSchema, {
    id: BigInt(task.id),
    workflowPayload: new TextEncoder().encode(task.workflowPayload),
    // Always present: the Go runner dereferences it unconditionally.
    context: JSON.parse(JSON.stringify(task.context)) as JsonObject,
    secrets: { ...task.secrets },
    vars: { ...task.vars },
    needs,
  });
}

/** A reported step as the domain reads it. */
export function fromStepState(step: StepState): StepReportInput {
  return {
    id: Number(step.id),
    result: fromWireResult(step.result),
    startedAt: dateOf(step.startedAt),
    stoppedAt: dateOf(step.stoppedAt),
    logIndex: Number(step.logIndex),
    logLength: Number(step.logLength),
  };
}

export function dateOf(timestamp: Timestamp | undefined): Date | undefined {
  return timestamp === undefined ? undefined : timestampDate(timestamp);
}

/**
 * A runner's log row as the domain reads it (`{time, content}`), converted only when read: rows
 * that a call drops unread (past a log's cap) cost neither a Date nor a string.
 */
export class ReportedLogRow {
  readonly #row: LogRow;
  #time: Date | undefined;

  constructor(row: LogRow) {
    this.#row = row;
  }

  /** When the runner says the row was printed; when it does not say, when it was first read. */
  get time(): Date {
    this.#time ??= dateOf(this.#row.time) ?? new Date();
    return this.#time;
  }

  get content(): string {
    return this.#row.content;
  }
}
