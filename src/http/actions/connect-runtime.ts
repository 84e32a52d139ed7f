import {
  Code,
  ConnectError,
  createConnectRouter,
  createContextKey,
  createContextValues,
  type Interceptor,
} from '@connectrpc/connect';
import { codeToHttpStatus, codeToString } from '@connectrpc/connect/protocol-connect';
import {
  universalRequestFromNodeRequest,
  universalResponseToNodeResponse,
} from '@connectrpc/connect-node';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { PingService } from '../../gen/ping/v1/services_pb.js';
import { RunnerService } from '../../gen/runner/v1/services_pb.js';
import { toConnectError } from './connect-errors.ts';
import { pingService } from './ping-service.ts';
import { createProtoBodyParser } from './proto-body.ts';
import { requestGzip } from './request-gzip.ts';
import { runnerAuthInterceptor } from './runner-auth.ts';
import type { RunnerRegistry } from './runner-registry.ts';
import { createRunnerService } from './runner-service.ts';

/** The services mounted under `/api/actions`. */
export const services = [PingService, RunnerService] as const;

/**
 * The Connect side of `/api/actions`: the router with both services, the binary body check and
 * the error mapping. Loaded with the first call under the prefix (see actions.routes.ts), so a
 * server that no runner talks to never holds Connect, protobuf or their message descriptors.
 */
export class ConnectRuntime {
  readonly #handlers = new Map<
    string,
    ReturnType<typeof createConnectRouter>['handlers'][number]
  >();
  readonly parseProtoBody: ReturnType<typeof createProtoBodyParser>;

  constructor(runners: RunnerRegistry, maxRequestBytes: number) {
    this.parseProtoBody = createProtoBodyParser(services, maxRequestBytes);
    const router = createConnectRouter({
      grpc: false,
      grpcWeb: false,
      readMaxBytes: maxRequestBytes,
      // gzip only, as connect-go (Gitea's server) accepts: connect-es answers a corrupt brotli
      // body with `internal` (500) instead of `invalid_argument`; `br` now gets `unimplemented`.
      acceptCompression: [requestGzip],
      // The first interceptor is the outermost: it also maps what the auth check throws.
      interceptors: [mapErrors, runnerAuthInterceptor(runners)],
    });
    router.service(PingService, pingService);
    router.service(RunnerService, createRunnerService(runners));
    for (const handler of router.handlers) this.#handlers.set(handler.requestPath, handler);
  }

  /** The procedures served, as paths below the prefix (`/ping.v1.PingService/Ping`). */
  get paths(): string[] {
    return [...this.#handlers.keys()];
  }

  /**
   * Answers one call to `path` (below the prefix) on the raw response, the way Connect's own
   * Fastify adapter does, with the body the parsers left on the request.
   */
  async handle(path: string, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const handler = this.#handlers.get(path);
    // Only the paths of PROCEDURES are routed here, and a test holds them equal to `services`.
    if (handler === undefined) throw new ConnectError('unknown procedure', Code.Unimplemented);
    try {
      const response = await handler(
        universalRequestFromNodeRequest(
          request.raw,
          reply.raw,
          request.body as never,
          createContextValues().set(requestLog, request.log),
        ),
      );
      // Fastify keeps headers set on the reply (by hooks) until `send`, which is not used here.
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        if (value !== undefined) reply.raw.setHeader(name, value);
      }
      await universalResponseToNodeResponse(response, reply.raw);
    } catch (error) {
      // The client went away mid-answer; there is nobody left to tell.
      if (ConnectError.from(error).code === Code.Aborted) return;
      request.log.error({ err: error, procedure: path }, 'runner protocol call failed');
    }
  }

  /**
   * Answers anything thrown outside a handler (the body parsers, Fastify itself) as the Connect
   * error it maps to: its HTTP status and a `{"code", "message"}` JSON body.
   */
  sendError(reply: FastifyReply, error: unknown, log: FastifyBaseLogger): FastifyReply {
    const connect = toConnectError(error, { log });
    return reply
      .code(codeToHttpStatus(connect.code))
      .type('application/json')
      .send(JSON.stringify({ code: codeToString(connect.code), message: connect.rawMessage }));
  }
}

const requestLog = createContextKey<FastifyBaseLogger | undefined>(undefined, {
  description: 'the Fastify request logger',
});

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
