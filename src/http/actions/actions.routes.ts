import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { lazily } from '../../lib/lazily.ts';
import type { IncomingMessage } from '../../lib/node-http.ts';
import type { RunnerPacing } from './runner-pacing.ts';
import type { RunnerRegistry } from './runner-registry.ts';
import type { RunnerTasks } from './runner-tasks.ts';

/** Where runners find the protocol: they append it to the instance address themselves. */
export const ACTIONS_PREFIX = '/api/actions';

/**
 * Default for `maxRequestBytes`, a ceiling over the caps of each method (body-limits.ts), which
 * are lower.
 */
export const MAX_REQUEST_BYTES = 2 * 1024 * 1024;

export interface ActionsDeps {
  readonly runners: RunnerRegistry;
  /** FetchTask, UpdateTask, UpdateLog; without it those answer `unimplemented`. */
  readonly tasks?: RunnerTasks;
  /** The external base URL of a request (for task contexts); needed with `tasks`. */
  readonly baseUrl?: (request: FastifyRequest) => string;
  /** Largest request body read for any method; a larger one is `resource_exhausted`. */
  readonly maxRequestBytes?: number;
  /** Paces refused calls and log uploads (runner-pacing.ts); its defaults when absent. */
  readonly pacing?: RunnerPacing;
}

/**
 * Every procedure of `ping.v1` and `runner.v1`, as paths below the prefix. Written out so that the
 * routes exist from the start while Connect and the message descriptors load with the first call;
 * connect-runtime.test.ts holds this list equal to the services' methods.
 */
export const PROCEDURES = [
  '/ping.v1.PingService/Ping',
  '/runner.v1.RunnerService/Register',
  '/runner.v1.RunnerService/Declare',
  '/runner.v1.RunnerService/FetchTask',
  '/runner.v1.RunnerService/UpdateTask',
  '/runner.v1.RunnerService/UpdateLog',
] as const;

/**
 * Connect's unary content types: binary and JSON (with an optional UTF-8 charset). Written out
 * so a probe with another type is refused without loading Connect; connect-runtime.test.ts
 * holds it equal to Connect's own.
 */
export const UNARY_CONTENT_TYPE = /^application\/(?:json(?:; ?charset=utf-?8)?|proto)$/i;

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
  const maxRequestBytes = deps.maxRequestBytes ?? MAX_REQUEST_BYTES;
  // About 0.2 s once, on the first runner call of the process.
  const runtime = lazily(() =>
    import('./connect-runtime.ts').then(
      ({ ConnectRuntime }) =>
        new ConnectRuntime(
          deps.runners,
          maxRequestBytes,
          deps.tasks && deps.baseUrl ? { tasks: deps.tasks, baseUrl: deps.baseUrl } : undefined,
          deps.pacing,
        ),
    ),
  );

  fastify.register(
    async (scope) => {
      // Connect reads the body itself (chunked bodies without Content-Length included): drop the
      // parsers the app registered and hand every content type through unread, except that
      // binary bodies are checked to decode first (see proto-body.ts). Every body is read within
      // its method's caps (body-limits.ts), and only once the runner's headers have been checked.
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
      scope.addContentTypeParser(
        'application/json',
        async (request: FastifyRequest, payload: IncomingMessage) =>
          (await runtime()).parseJsonBody(request, payload),
      );
      scope.addContentTypeParser(
        'application/proto',
        async (request: FastifyRequest, payload: IncomingMessage) =>
          (await runtime()).parseProtoBody(request, payload),
      );
      scope.addHook('onRequest', rejectUnsupportedRequests);
      scope.addHook('preParsing', async (request, _reply, payload) => {
        if (!request.is404) await (await runtime()).authenticate(request);
        return payload;
      });
      scope.setNotFoundHandler((request, reply) => {
        sendConnectError(request, reply, 404, 'unimplemented', 'unknown procedure');
      });
      scope.setErrorHandler(async (error, request, reply) => {
        closeIfUnread(request, reply);
        return (await runtime()).sendError(reply, error, request.log);
      });
      for (const path of PROCEDURES) {
        scope.all(path, async (request, reply) => {
          await (await runtime()).handle(path, request, reply);
        });
      }
    },
    { prefix: ACTIONS_PREFIX },
  );
}

/**
 * Connect answers a wrong HTTP method or content type with a bare 405/415; answer those here
 * with the same status, the header that names what is accepted, and a Connect error body that a
 * person with curl can read. A request without Host (HTTP/1.0) would make the Connect adapter
 * throw before it answers, leaving Fastify to send an empty 200 that decodes as a valid reply.
 * None of this needs Connect loaded: a scanner probing the prefix does not load it.
 */
async function rejectUnsupportedRequests(request: FastifyRequest, reply: FastifyReply) {
  if (request.is404) return;
  if (request.method !== 'POST') {
    reply.header('allow', 'POST');
    sendConnectError(request, reply, 405, 'unimplemented', 'use POST');
    return reply;
  }
  const contentType = request.headers['content-type'] ?? '';
  if (!UNARY_CONTENT_TYPE.test(contentType)) {
    reply.header('accept-post', 'application/proto, application/json');
    const message = 'unsupported content type: send application/proto or application/json';
    sendConnectError(request, reply, 415, 'invalid_argument', message);
    return reply;
  }
  if (request.headers.host === undefined || request.headers.host === '') {
    sendConnectError(request, reply, 400, 'invalid_argument', 'missing Host header');
    return reply;
  }
}

/**
 * A request refused before its body was read in full (unauthenticated, over its cap, of the
 * wrong type) closes its connection with the answer: keeping it alive would make the server read
 * and throw away the rest of the body, which for a 16 MiB body is most of what it costs.
 *
 * Invariant: of a refused body declared larger than any call accepts, not a byte more is read.
 * Node would otherwise read and discard it until the socket closed (a buffer per chunk: garbage
 * the collector then spends its time on), so reading stops here and the socket is destroyed as
 * soon as the answer is handed to it. A body of a size a runner sends is still let drain before
 * the close: a client still writing when the connection is reset may lose the answer, and a
 * runner whose registration is gone must read its `unauthenticated` to stop.
 */
function closeIfUnread(request: FastifyRequest, reply: FastifyReply): void {
  if (request.raw.complete) return;
  reply.header('connection', 'close');
  if (!(Number(request.headers['content-length']) > MAX_REQUEST_BYTES)) return;
  const socket = request.raw.socket;
  socket.pause();
  reply.raw.once('finish', () => socket.destroy());
}

/** A Connect error body (`{"code", "message"}` JSON), with the status Connect gives that code. */
function sendConnectError(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  code: 'unimplemented' | 'invalid_argument',
  message: string,
): void {
  closeIfUnread(request, reply);
  reply.code(status).type('application/json').send(JSON.stringify({ code, message }));
}
