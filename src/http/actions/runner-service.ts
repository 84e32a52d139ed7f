import { Code, ConnectError, type HandlerContext, type ServiceImpl } from '@connectrpc/connect';
import { Result } from '../../gen/runner/v1/messages_pb.js';
import type { RunnerService } from '../../gen/runner/v1/services_pb.js';
import { toRunnerAuthError } from './connect-errors.ts';
import { authenticatedRunner, requireRunnerCredentials } from './runner-auth.ts';
import { toRunnerMessage } from './runner-message.ts';
import type { RunnerRecord, RunnerRegistry } from './runner-registry.ts';
import type { RunnerTasks } from './runner-tasks.ts';
import {
  fromStepState,
  fromWireResult,
  ReportedLogRow,
  toTaskMessage,
  toWireResult,
} from './task-message.ts';

/** The external base URL of the call being handled, for the task context. */
export type BaseUrlOf = (context: HandlerContext) => string;

/**
 * `runner.v1.RunnerService`. Runner headers have been checked by `runnerAuthInterceptor` before
 * any method but Register and Declare runs (Declare checks them in its own update); errors are
 * mapped by the error interceptor, so handlers only translate failed credentials. Without
 * `tasks` (an edge built for registration only) the task methods are `unimplemented`.
 */
export function createRunnerService(
  registry: RunnerRegistry,
  tasks?: RunnerTasks,
  baseUrlOf?: BaseUrlOf,
): ServiceImpl<typeof RunnerService> {
  return {
    async register(request) {
      const { runner, token } = await registry.register({
        token: request.token,
        name: request.name,
        version: request.version,
        // Runners older than act_runner v0.2.0 send label names only in the deprecated field.
        labels: request.labels.length > 0 ? request.labels : request.agentLabels,
        ephemeral: request.ephemeral,
        capabilities: request.capabilities,
      });
      return { runner: toRunnerMessage(runner, { token }) };
    },

    async declare(request, context) {
      const credentials = requireRunnerCredentials(context.requestHeader);
      const runner = await registry
        .declare({
          ...credentials,
          version: request.version,
          labels: request.labels,
          capabilities: request.capabilities,
        })
        .catch((error: unknown) => {
          throw toRunnerAuthError(error);
        });
      return { runner: toRunnerMessage(runner) };
    },

    async fetchTask(request, context) {
      if (tasks === undefined || baseUrlOf === undefined) throw notServed('FetchTask');
      const { task, tasksVersion } = await tasks.fetchTask(
        runnerOf(context),
        Number(request.tasksVersion),
        baseUrlOf(context),
      );
      return {
        task: task === undefined ? undefined : toTaskMessage(task),
        tasksVersion: BigInt(tasksVersion),
      };
    },

    async updateTask(request, context) {
      if (tasks === undefined) throw notServed('UpdateTask');
      const state = request.state;
      const taskId = Number(state?.id ?? 0n);
      const answer = await tasks.updateTask(runnerOf(context), {
        taskId,
        result: fromWireResult(state?.result ?? Result.UNSPECIFIED),
        steps: (state?.steps ?? []).map(fromStepState),
        outputs: request.outputs,
      });
      return {
        state: { id: BigInt(taskId), result: toWireResult(answer.status) },
        sentOutputs: [...answer.sentOutputs],
      };
    },

    async updateLog(request, context) {
      if (tasks === undefined) throw notServed('UpdateLog');
      const ack = await tasks.updateLog(
        runnerOf(context),
        Number(request.taskId),
        Number(request.index),
        request.rows.map((row) => new ReportedLogRow(row)),
        request.noMore,
      );
      return { ackIndex: BigInt(ack) };
    },
  };
}

/** The runner the auth interceptor let through; every task method runs after it. */
function runnerOf(context: HandlerContext): RunnerRecord {
  const runner = context.values.get(authenticatedRunner);
  if (runner === undefined) throw new ConnectError('unregistered runner', Code.Unauthenticated);
  return runner;
}

/** What the task methods answer when the edge was built without the task services (no CI wired). */
function notServed(method: string): ConnectError {
  return new ConnectError(
    `runner.v1.RunnerService/${method} is not served yet`,
    Code.Unimplemented,
  );
}
