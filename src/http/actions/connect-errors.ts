/**
 * The one place where the runner protocol edge turns errors into Connect errors. Handlers and
 * interceptors throw whatever they get (domain errors, mostly); the error interceptor and the
 * Fastify error handler of `/api/actions` call `toConnectError`, and the auth interceptor calls
 * `toRunnerAuthError`.
 */
import type { DescMethod } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { isDomainError, NotFound, Unauthenticated } from '../../domain/errors.ts';
import { RunnerService } from '../../gen/runner/v1/services_pb.js';
import { type ConnectCodeName, connectCodeOf } from '../errors/error-table.ts';

/**
 * What a runner with missing, unknown or wrong `x-runner-uuid` / `x-runner-token` is told. Runners
 * match this exact text: gitea/runner deletes an ephemeral runner's `.runner` file only on it.
 */
export const UNREGISTERED_RUNNER_MESSAGE = 'unregistered runner';

/**
 * What Register with an unknown or deleted registration token says (Gitea's wording; the runner
 * prints it to the operator). SPEC.md makes it `unauthenticated`, where Gitea says `invalid_argument`.
 */
export const REGISTRATION_TOKEN_NOT_FOUND_MESSAGE = 'runner registration token not found';

/** Shown for anything unexpected; the details go to the log, never to the client. */
export const INTERNAL_ERROR_MESSAGE = 'internal error';

/** Connect's code for each name the error table answers with. */
const codeOfName: Readonly<Record<ConnectCodeName, Code>> = {
  not_found: Code.NotFound,
  already_exists: Code.AlreadyExists,
  permission_denied: Code.PermissionDenied,
  invalid_argument: Code.InvalidArgument,
  unauthenticated: Code.Unauthenticated,
  failed_precondition: Code.FailedPrecondition,
  unavailable: Code.Unavailable,
  resource_exhausted: Code.ResourceExhausted,
};

/** Status codes Fastify itself may raise under `/api/actions` (body parsing, limits, hooks). */
const codeOfHttpStatus: Readonly<Record<number, Code>> = {
  400: Code.InvalidArgument,
  401: Code.Unauthenticated,
  403: Code.PermissionDenied,
  404: Code.Unimplemented,
  408: Code.DeadlineExceeded,
  413: Code.ResourceExhausted,
  415: Code.InvalidArgument,
  429: Code.ResourceExhausted,
};

/** The part of a pino/Fastify logger used here. */
export interface ErrorLog {
  error(object: object, message: string): void;
}

export interface ErrorContext {
  /** The RPC being served, when known: it picks the wording of `unauthenticated`. */
  readonly procedure?: DescMethod | undefined;
  /** Where unexpected errors are logged (the request's logger). */
  readonly log?: ErrorLog | undefined;
}

/**
 * Maps an error thrown while serving an RPC to the ConnectError sent to the runner.
 *
 * @example
 * toConnectError(new Unauthenticated('bad token'), { procedure: RunnerService.method.register })
 * // → ConnectError unauthenticated, "runner registration token not found"
 */
export function toConnectError(error: unknown, context: ErrorContext = {}): ConnectError {
  if (error instanceof ConnectError) return error;
  if (isDomainError(error)) {
    const code = codeOfName[connectCodeOf(error.code)];
    if (code === Code.Unauthenticated) {
      return new ConnectError(unauthenticatedMessage(context.procedure), code);
    }
    return new ConnectError(error.message, code);
  }
  const status = httpStatusOf(error);
  if (status !== undefined && status < 500) {
    const code = codeOfHttpStatus[status] ?? Code.InvalidArgument;
    return new ConnectError(error instanceof Error ? error.message : 'bad request', code);
  }
  context.log?.error({ err: error }, 'runner protocol: unexpected error');
  return new ConnectError(INTERNAL_ERROR_MESSAGE, Code.Internal);
}

/**
 * Maps a failure of the runner-header check. Missing, unknown and wrong credentials are
 * deliberately indistinguishable (as in Gitea): `Unauthenticated` and `NotFound` both become
 * `unauthenticated` / `unregistered runner`. Anything else is left to `toConnectError`.
 */
export function toRunnerAuthError(error: unknown): unknown {
  if (error instanceof Unauthenticated || error instanceof NotFound) {
    return new ConnectError(UNREGISTERED_RUNNER_MESSAGE, Code.Unauthenticated);
  }
  return error;
}

function unauthenticatedMessage(procedure: DescMethod | undefined): string {
  return procedure === RunnerService.method.register
    ? REGISTRATION_TOKEN_NOT_FOUND_MESSAGE
    : UNREGISTERED_RUNNER_MESSAGE;
}

function httpStatusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('statusCode' in error)) return undefined;
  const status = error.statusCode;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : undefined;
}
