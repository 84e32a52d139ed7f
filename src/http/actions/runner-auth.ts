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

/**
 * Checks the runner headers on every RunnerService call except Register, before the handler runs
 * (as Gitea's interceptor does), so even calls that are not served yet answer `unauthenticated`
 * to a runner that is gone: gitea/runner stops polling on that. Ping needs no credentials.
 */
export function runnerAuthInterceptor(registry: RunnerRegistry): Interceptor {
  return (next) => async (request) => {
    if (
      request.service.typeName !== RunnerService.typeName ||
      request.method.name === RunnerService.method.register.name
    ) {
      return next(request);
    }
    const { uuid, token } = readRunnerCredentials(request.header);
    let runner: RunnerRecord;
    try {
      if (uuid === '' || token === '') throw new Unauthenticated('missing runner credentials');
      runner = await registry.authenticate(uuid, token);
    } catch (error) {
      throw toRunnerAuthError(error);
    }
    request.contextValues.set(authenticatedRunner, runner);
    return next(request);
  };
}
