import { Code, ConnectError } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import {
  Conflict,
  Forbidden,
  Invalid,
  NotAllowed,
  NotFound,
  Unauthenticated,
  Unavailable,
} from '../../domain/errors.ts';
import { PingService } from '../../gen/ping/v1/services_pb.js';
import { RunnerService } from '../../gen/runner/v1/services_pb.js';
import {
  INTERNAL_ERROR_MESSAGE,
  REGISTRATION_TOKEN_NOT_FOUND_MESSAGE,
  toConnectError,
  toRunnerAuthError,
  UNREGISTERED_RUNNER_MESSAGE,
} from './connect-errors.ts';

const register = RunnerService.method.register;
const declare = RunnerService.method.declare;

describe('toConnectError', () => {
  it('says "unregistered runner" for Unauthenticated outside Register', () => {
    for (const procedure of [declare, RunnerService.method.fetchTask, undefined]) {
      const error = toConnectError(new Unauthenticated('token mismatch'), { procedure });
      expect(error.code).toBe(Code.Unauthenticated);
      expect(error.rawMessage).toBe(UNREGISTERED_RUNNER_MESSAGE);
    }
  });

  it('names the registration token for Unauthenticated in Register', () => {
    const error = toConnectError(new Unauthenticated('no row'), { procedure: register });
    expect(error.code).toBe(Code.Unauthenticated);
    expect(error.rawMessage).toBe(REGISTRATION_TOKEN_NOT_FOUND_MESSAGE);
  });

  it('keeps the safe message of the other domain errors', () => {
    const cases = [
      [new Invalid('name too long'), Code.InvalidArgument],
      [new NotFound('no such task'), Code.NotFound],
      [new Conflict('taken'), Code.AlreadyExists],
      [new Forbidden('not yours'), Code.PermissionDenied],
      [new NotAllowed('already final'), Code.FailedPrecondition],
      [new Unavailable('database busy'), Code.Unavailable],
    ] as const;
    for (const [domainError, code] of cases) {
      const error = toConnectError(domainError, { procedure: declare });
      expect(Code[error.code]).toBe(Code[code]);
      expect(error.rawMessage).toBe(domainError.message);
    }
  });

  it('passes ConnectErrors through', () => {
    const original = new ConnectError('nope', Code.Unimplemented);
    expect(toConnectError(original)).toBe(original);
  });

  it('hides unknown errors and logs them', () => {
    const logged: unknown[] = [];
    const log = { error: (object: object) => void logged.push(object) };
    const secret = new Error('connection to db-internal:5432 refused');
    const error = toConnectError(secret, { procedure: PingService.method.ping, log });
    expect(error.code).toBe(Code.Internal);
    expect(error.rawMessage).toBe(INTERNAL_ERROR_MESSAGE);
    expect(error.cause).toBeUndefined();
    expect(logged).toEqual([{ err: secret }]);
  });

  it('maps the client errors Fastify raises by status', () => {
    const tooLarge = Object.assign(new Error('Request body is too large'), { statusCode: 413 });
    expect(toConnectError(tooLarge).code).toBe(Code.ResourceExhausted);
    const bad = Object.assign(new Error('Bad Request'), { statusCode: 400 });
    expect(toConnectError(bad).code).toBe(Code.InvalidArgument);
    const broken = Object.assign(new Error('boom'), { statusCode: 500 });
    expect(toConnectError(broken).code).toBe(Code.Internal);
  });
});

describe('toRunnerAuthError', () => {
  it('turns Unauthenticated and NotFound into unregistered runner', () => {
    for (const cause of [new Unauthenticated('wrong token'), new NotFound('no runner')]) {
      const error = toRunnerAuthError(cause);
      expect(error).toBeInstanceOf(ConnectError);
      expect((error as ConnectError).code).toBe(Code.Unauthenticated);
      expect((error as ConnectError).rawMessage).toBe(UNREGISTERED_RUNNER_MESSAGE);
    }
  });

  it('leaves other failures for toConnectError', () => {
    const down = new Unavailable('database down');
    expect(toRunnerAuthError(down)).toBe(down);
  });
});
