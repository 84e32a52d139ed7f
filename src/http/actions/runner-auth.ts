import { createContextKey, type Interceptor } from '@connectrpc/connect';
import { Unauthenticated } from '../../domain/errors.ts';
import { RunnerService } from '../../gen/runner/v1/services_pb.js';
import { toRunnerAuthError } from './connect-errors.ts';
import type { RunnerRecord, RunnerRegistry } from './runner-registry.ts';

/** The runner that `runnerAuthInterceptor` authenticated for this call, if any. */
export const authenticatedRunner = createContextKey<RunnerRecord | undefined>(undefined, {
  description: 'the authenticated runner',
});

export interface RunnerCredentials {
  readonly uuid: string;
  readonly token: string;
}

/** The `x-runner-uuid` / `x-runner-token` pair; empty strings when a header is absent. */
export function readRunnerCredentials(header: Headers): RunnerCredentials {
  return {
    uuid: header.get('x-runner-uuid')?.trim() ?? '',
    token: header.get('x-runner-token')?.trim() ?? '',
  };
}

/** The runner headers, or the `unregistered runner` error when either is missing. */
export function requireRunnerCredentials(header: Headers): RunnerCredentials {
  const credentials = readRunnerCredentials(header);
  if (credentials.uuid === '' || credentials.token === '') {
    throw toRunnerAuthError(new Unauthenticated('missing runner credentials'));
  }
  return credentials;
}

/**
 * Methods that check the runner's credentials themselves. Register carries none; Declare's
 * update is guarded by the credentials in the same statement, so a separate check first would
 * only cost a second query on every runner start.
 */
const checkedByHandler: ReadonlySet<string> = new Set([
  RunnerService.method.register.name,
  RunnerService.method.declare.name,
]);

/**
 * Checks the runner headers on every RunnerService call except Register and Declare (which
 * check them themselves), before the handler runs, as Gitea's interceptor does: even calls that
 * are not served yet answer `unauthenticated` to a runner that is gone, and gitea/runner stops
 * polling on that. Ping needs no credentials.
 */
export function runnerAuthInterceptor(registry: RunnerRegistry): Interceptor {
  return (next) => async (request) => {
    if (
      request.service.typeName !== RunnerService.typeName ||
      checkedByHandler.has(request.method.name)
    ) {
      return next(request);
    }
    const { uuid, token } = requireRunnerCredentials(request.header);
    let runner: RunnerRecord;
    try {
      runner = await registry.authenticate(uuid, token);
    } catch (error) {
      throw toRunnerAuthError(error);
    }
    request.contextValues.set(authenticatedRunner, runner);
    return next(request);
  };
}
