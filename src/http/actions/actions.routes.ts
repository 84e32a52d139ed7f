import {
  Code,
  ConnectError,
  type ConnectRouter,
  createContextKey,
  createContextValues,
  type Interceptor,
} from '@connectrpc/connect';
import {
  codeToHttpStatus,
  codeToString,
  contentTypeUnaryRegExp,
} from '@connectrpc/connect/protocol-connect';
import { fastifyConnectPlugin } from '@connectrpc/connect-fastify';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PingService } from '../../gen/ping/v1/services_pb.js';
import { RunnerService } from '../../gen/runner/v1/services_pb.js';
import { toConnectError } from './connect-errors.ts';
import { pingService } from './ping-service.ts';
import { createProtoBodyParser } from './proto-body.ts';
import { requestGzip } from './request-gzip.ts';
import { runnerAuthInterceptor } from './runner-auth.ts';
import type { RunnerRegistry } from './runner-registry.ts';
import { createRunnerService } from './runner-service.ts';

/** Where runners find the protocol: they append it to the instance address themselves. */
export const ACTIONS_PREFIX = '/api/actions';

/** Default for `maxRequestBytes`: room for phase-2 log uploads, the largest runner requests. */
export const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

export interface ActionsDeps {
  readonly runners: RunnerRegistry;
  /** Largest request body read; a larger one is `resource_exhausted`. */
  readonly maxRequestBytes?: number;
}

const services = [PingService, RunnerService] as const;

const requestLog = createContextKey<FastifyBaseLogger | undefined>(undefined, {
  description: 'the Fastify request logger',
});

/**
 * Mounts `ping.v1` and `runner.v1` (Connect unary, binary and JSON codecs) at `/api/actions`.
 *
 * Everything lives in one encapsulated plugin, so what it changes stays under the prefix: the
 * app's own body parsers (JSON, forms) are removed there because Connect must read raw bodies,
 * and every failure, including unknown paths and Fastify's own errors, answers as a Connect
 * error (`{"code", "message"}` JSON) instead of the REST error shape.
 *
 * @example
 * registerActionsRoutes(app, { runners: runnerRegistry });
 * await app.ready();
 */
export function registerActionsRoutes(fastify: FastifyInstance, deps: ActionsDeps): void {
  fastify.register(
    async (scope) => {
      const maxRequestBytes = deps.maxRequestBytes ?? MAX_REQUEST_BYTES;
      // Connect reads the body itself (chunked bodies without Content-Length included): drop the
      // parsers the app registered and hand every content type through unread, except that
      // binary bodies are checked to decode first (see proto-body.ts).
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
      scope.addContentTypeParser(
        'application/proto',
        createProtoBodyParser(services, maxRequestBytes),
      );
      scope.addHook('onRequest', rejectUnsupportedRequests);
      scope.setNotFoundHandler((_request, reply) => {
        sendConnectError(reply, new ConnectError('unknown procedure', Code.Unimplemented), 404);
      });
      scope.setErrorHandler((error, request, reply) => {
        sendConnectError(reply, toConnectError(error, { log: request.log }));
      });

      await scope.register(fastifyConnectPlugin, {
        routes: (router: ConnectRouter) => {
          router.service(PingService, pingService);
          router.service(RunnerService, createRunnerService(deps.runners));
        },
        grpc: false,
        grpcWeb: false,
        readMaxBytes: maxRequestBytes,
        // gzip only, as connect-go (Gitea's server) accepts: connect-es answers a corrupt brotli
        // body with `internal` (500) instead of `invalid_argument`; `br` now gets `unimplemented`.
        acceptCompression: [requestGzip],
        // The first interceptor is the outermost: it also maps what the auth check throws.
        interceptors: [mapErrors, runnerAuthInterceptor(deps.runners)],
        contextValues: (request) => createContextValues().set(requestLog, request.log),
      });
    },
    { prefix: ACTIONS_PREFIX },
  );
}

const mapErrors: Interceptor = (next) => async (request) => {
  try {
    return await next(request);
  } catch (error) {
    throw toConnectError(error, {
      procedure: request.method,
      log: request.contextValues.get(requestLog),
    });
  }
};

/**
 * Connect answers a wrong HTTP method or content type with a bare 405/415; answer those here
 * with the same status, the header that names what is accepted, and a Connect error body that a
 * person with curl can read. A request without Host (HTTP/1.0) would make the Connect adapter
 * throw before it answers, leaving Fastify to send an empty 200 that decodes as a valid reply.
 */
async function rejectUnsupportedRequests(request: FastifyRequest, reply: FastifyReply) {
  if (request.is404) return;
  if (request.method !== 'POST') {
    reply.header('allow', 'POST');
    sendConnectError(reply, new ConnectError('use POST', Code.Unimplemented), 405);
    return reply;
  }
  const contentType = request.headers['content-type'] ?? '';
  if (!contentTypeUnaryRegExp.test(contentType)) {
    reply.header('accept-post', 'application/proto, application/json');
    const message = 'unsupported content type: send application/proto or application/json';
    sendConnectError(reply, new ConnectError(message, Code.InvalidArgument), 415);
    return reply;
  }
  if (request.headers.host === undefined || request.headers.host === '') {
    sendConnectError(reply, new ConnectError('missing Host header', Code.InvalidArgument));
    return reply;
  }
}

function sendConnectError(reply: FastifyReply, error: ConnectError, status?: number): void {
  reply
    .code(status ?? codeToHttpStatus(error.code))
    .type('application/json')
    .send(JSON.stringify({ code: codeToString(error.code), message: error.rawMessage }));
}
