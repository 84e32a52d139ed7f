import { Code } from '@connectrpc/connect';
import Fastify, { type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/load.ts';
import {
  Conflict,
  type DomainError,
  type DomainErrorCode,
  Forbidden,
  Invalid,
  NotAllowed,
  NotFound,
  TooLarge,
  TooManyAttempts,
  Unauthenticated,
  Unavailable,
  Unsupported,
} from '../../domain/errors.ts';
import { errorResult } from '../../mcp/mcp-errors.ts';
import { toConnectError } from '../actions/connect-errors.ts';
import { federationErrorHandler } from '../federation/federation-errors.ts';
import { apiErrorHandler } from './api-errors.ts';
import { DOMAIN_ERROR_CODES } from './error-table.ts';
import { gitErrorHandler } from './git-errors.ts';
import { pageStatusOf } from './web-errors.ts';

const MAKE: Record<DomainErrorCode, (message: string) => DomainError> = {
  not_found: (m) => new NotFound(m),
  conflict: (m) => new Conflict(m),
  forbidden: (m) => new Forbidden(m),
  invalid: (m) => new Invalid(m),
  unauthenticated: (m) => new Unauthenticated(m),
  not_allowed: (m) => new NotAllowed(m),
  unavailable: (m) => new Unavailable(m),
  rate_limited: (m) => new TooManyAttempts(m),
  too_large: (m) => new TooLarge(m),
  unsupported: (m) => new Unsupported(m),
};

/** What each edge answers, written out by hand so that a change to the table shows here. */
const EXPECTED: Record<
  DomainErrorCode,
  { api: number; page: number; git: number; federation: number; connect: Code }
> = {
  not_found: { api: 404, page: 404, git: 404, federation: 404, connect: Code.NotFound },
  conflict: { api: 409, page: 409, git: 409, federation: 409, connect: Code.AlreadyExists },
  forbidden: { api: 403, page: 403, git: 403, federation: 403, connect: Code.PermissionDenied },
  invalid: { api: 422, page: 422, git: 400, federation: 400, connect: Code.InvalidArgument },
  unauthenticated: {
    api: 401,
    page: 401,
    git: 401,
    federation: 401,
    connect: Code.Unauthenticated,
  },
  not_allowed: { api: 405, page: 405, git: 405, federation: 405, connect: Code.FailedPrecondition },
  unavailable: { api: 503, page: 503, git: 503, federation: 503, connect: Code.Unavailable },
  rate_limited: { api: 429, page: 429, git: 429, federation: 429, connect: Code.ResourceExhausted },
  too_large: { api: 413, page: 413, git: 413, federation: 413, connect: Code.ResourceExhausted },
  unsupported: { api: 415, page: 415, git: 415, federation: 415, connect: Code.InvalidArgument },
};

/** A server whose one route throws `error`, answered by `handler`. */
async function answerTo(
  handler: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => unknown,
  error: DomainError,
) {
  const server = Fastify();
  server.setErrorHandler(handler);
  server.get('/', async () => {
    throw error;
  });
  const response = await server.inject({ method: 'GET', url: '/' });
  await server.close();
  return response;
}

const config = loadConfig({ env: {}, file: undefined });
const silent = pino({ level: 'silent' });

describe('the error table', () => {
  it('covers every domain error code', () => {
    expect([...DOMAIN_ERROR_CODES].sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const code of DOMAIN_ERROR_CODES) {
    it(`maps ${code} on every edge`, async () => {
      const error = MAKE[code]('the message');
      const want = EXPECTED[code];

      const api = await answerTo(apiErrorHandler(config), error);
      expect(api.statusCode).toBe(want.api);
      expect(api.json()).toMatchObject({ message: 'the message' });

      expect(pageStatusOf(error)).toBe(want.page);

      const git = await answerTo(gitErrorHandler, error);
      expect(git.statusCode).toBe(want.git);
      expect(git.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(git.body).toBe(want.git === 404 ? 'Repository not found.\n' : 'the message\n');

      const federation = await answerTo(federationErrorHandler, error);
      expect(federation.statusCode).toBe(want.federation);
      expect(federation.body).toBe(want.federation === 404 ? 'not found' : 'the message');

      expect(toConnectError(error).code).toBe(want.connect);

      const mcp = errorResult(error, 'a_tool', silent);
      expect(mcp).toEqual({ content: [{ type: 'text', text: 'the message' }], isError: true });
    });
  }
});
