/**
 * One task from FetchTask to its final report: converts the wire message for the engine, runs
 * the job with a reporter attached, and stops it when the server or the daemon cancels it.
 */
import type { Client } from '@connectrpc/connect';
import { Result, type Task } from '../gen/runner/v1/messages_pb.js';
import type { RunnerService } from '../gen/runner/v1/services_pb.js';
import { runJob } from './engine/job.ts';
import type { Conclusion, HostInput, TaskInput } from './engine/task-input.ts';
import { parseWorkflow } from './engine/workflow.ts';
import { type ReporterTiming, TaskReporter } from './reporter.ts';
import { errorMessage } from './thrown.ts';

const CONCLUSIONS: Record<number, Conclusion | ''> = {
  [Result.SUCCESS]: 'success',
  [Result.FAILURE]: 'failure',
  [Result.CANCELLED]: 'cancelled',
  [Result.SKIPPED]: 'skipped',
};

/** The engine's view of a wire task. */
export function taskInput(task: Task): TaskInput {
  return {
    id: String(task.id),
    workflowPayload: new TextDecoder().decode(task.workflowPayload ?? new Uint8Array()),
    context: (task.context ?? {}) as Record<string, unknown>,
    secrets: task.secrets,
    vars: task.vars,
    needs: Object.fromEntries(
      Object.entries(task.needs).map(([id, need]) => [
        id,
        { outputs: need.outputs, result: CONCLUSIONS[need.result] ?? '' },
      ]),
    ),
  };
}

function stepCount(payload: string): number {
  try {
    return parseWorkflow(payload).steps.length;
  } catch {
    return 0;
  }
}

/** A task being run; `cancel()` stops it (its report still completes). */
export type RunningTask = { readonly done: Promise<Conclusion>; cancel(): void };

/** Starts running a task. */
export function startTask(options: {
  client: Client<typeof RunnerService>;
  task: Task;
  host: HostInput;
  log: (message: string) => void;
  timing?: ReporterTiming;
  /** Run nothing of the task: report it failed with this line (the runner cannot take it). */
  refusal?: string;
}): RunningTask {
  const controller = new AbortController();
  const input = taskInput(options.task);
  const reporter = new TaskReporter({
    client: options.client,
    taskId: options.task.id,
    stepCount: stepCount(input.workflowPayload),
    onCancel: () => controller.abort(),
    log: options.log,
    ...(options.timing ? { timing: options.timing } : {}),
  });
  const done = (async () => {
    options.log(`task ${input.id}: started`);
    reporter.start();
    let result: Conclusion = 'failure';
    try {
      if (options.refusal !== undefined) {
        reporter.line(`::error::${options.refusal}`);
        options.log(`task ${input.id}: refused: ${options.refusal}`);
        await reporter.finish('failure');
        return 'failure';
      }
      const outcome = await runJob(input, options.host, reporter, controller.signal);
      result = outcome.result;
      reporter.setOutputs(outcome.outputs);
    } catch (error) {
      reporter.line(`::error::the runner failed: ${errorMessage(error)}`);
    }
    await reporter.finish(result);
    options.log(`task ${input.id}: ${result}`);
    return result;
  })();
  return { done, cancel: () => controller.abort() };
}
