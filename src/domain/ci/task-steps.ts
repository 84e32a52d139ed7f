import type { CiTaskStatus } from '../../db/tables.ts';
import type { CiTaskResult } from './ci.types.ts';
import type { TaskReportStore } from './task-report.store.ts';

/** A step as the runner reports it; `id` is the step's 0-based index. */
export type StepReport = {
  readonly id: number;
  readonly result: CiTaskResult | undefined;
  readonly startedAt: Date | undefined;
  readonly stoppedAt: Date | undefined;
  readonly logIndex: number;
  readonly logLength: number;
};

/**
 * Stores the steps of a task as its runner reported them. Once the job is over (`over`), a step
 * without a result never got one: it was cut short if it had started, else it never ran.
 */
export async function storeSteps(
  reports: Pick<TaskReportStore, 'updateStep'>,
  taskId: number,
  steps: readonly StepReport[],
  over: boolean,
): Promise<void> {
  for (const step of steps) {
    const started = step.startedAt !== undefined;
    const status: CiTaskStatus =
      step.result ?? (over ? (started ? 'cancelled' : 'skipped') : started ? 'running' : 'pending');
    await reports.updateStep(taskId, {
      index: step.id,
      status,
      logIndex: step.logIndex,
      logLength: step.logLength,
      startedAt: step.startedAt?.getTime() ?? null,
      stoppedAt: step.stoppedAt?.getTime() ?? null,
    });
  }
}
