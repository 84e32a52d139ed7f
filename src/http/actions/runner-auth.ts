import { createContextKey, type Interceptor } from '@connectrpc/connect';
import type { FastifyRequest } from 'fastify';
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
 * Procedures read only after the runner's headers are checked: every one but Ping (which needs
 * no credentials) and Register (whose credential, the registration token, is in the body, so
 * its body cap is tiny: body-limits.ts).
 */
const readBeforeAuthentication: ReadonlySet<string> = new Set([
  '/ping.v1.PingService/Ping',
  `/${RunnerService.typeName}/${RunnerService.method.register.name}`,
]);

/**
 * Checks the runner headers of a call before a byte of its body is read (a Fastify
 * `preParsing` hook calls it), and answers the runner they name. Invariant: an anonymous or
 * wrongly credentialed request to any procedure but Ping and Register is answered
 * `unauthenticated` with its body unread, so that what it costs the server does not grow with
 * what it sends. Undefined for Ping and Register.
 */
export async function authenticateBeforeBody(
  registry: RunnerRegistry,
  request: FastifyRequest,
): Promise<RunnerRecord | undefined> {
  const path = `/${(request.routeOptions.url ?? '').split('/').slice(-2).join('/')}`;
  if (readBeforeAuthentication.has(path)) return undefined;
  const headers = new Headers();
  for (const name of ['x-runner-uuid', 'x-runner-token']) {
    const value = request.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  const { uuid, token } = requireRunnerCredentials(headers);
  try {
    return await registry.authenticate(uuid, token);
  } catch (error) {
    throw toRunnerAuthError(error);
  }
}

/**
 * Checks the runner headers on every RunnerService call except Register and Declare (which
 * check them themselves), before the handler runs, unless `authenticateBeforeBody` did already, as Gitea's interceptor does: even calls that
 * are not served yet answer `unauthenticated` to a runner that is gone, and gitea/runner stops
 * polling on that. Ping needs no credentials.
 */
export function runnerAuthInterceptor(registry: RunnerRegistry): Interceptor {
  return (next) => async (request) => {
    if (
      request.service.typeName !== RunnerService.typeName ||
      checkedByHandler.has(request.method.name) ||
      request.contextValues.get(authenticatedRunner) !== undefined
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
