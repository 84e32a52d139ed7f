import { Code, ConnectError, type ServiceImpl } from '@connectrpc/connect';
import type { RunnerService } from '../../gen/runner/v1/services_pb.js';
import { toRunnerAuthError } from './connect-errors.ts';
import { requireRunnerCredentials } from './runner-auth.ts';
import { toRunnerMessage } from './runner-message.ts';
import type { RunnerRegistry } from './runner-registry.ts';

/**
 * `runner.v1.RunnerService`, phase 1: Register and Declare. Runner headers have been checked by
 * `runnerAuthInterceptor` before any method but Register and Declare runs (Declare checks them
 * in its own update); errors are mapped by the error interceptor, so handlers only translate
 * failed credentials.
 */
export function createRunnerService(registry: RunnerRegistry): ServiceImpl<typeof RunnerService> {
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

    fetchTask() {
      throw notServed('FetchTask');
    },
    updateTask() {
      throw notServed('UpdateTask');
    },
    updateLog() {
      throw notServed('UpdateLog');
    },
  };
}

/** SPEC.md: task execution is defined in runner.v1 but not served in phase 1. */
function notServed(method: string): ConnectError {
  return new ConnectError(
    `runner.v1.RunnerService/${method} is not served yet`,
    Code.Unimplemented,
  );
}
