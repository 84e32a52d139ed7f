import {
  Code,
  ConnectError,
  type ConnectRouter,
  createContextKey,
  createContextValues,
  type Interceptor,
} from '@connectrpc/connect';
import { codeToHttpStatus, codeToString } from '@connectrpc/connect/protocol-connect';
import { fastifyConnectPlugin } from '@connectrpc/connect-fastify';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PingService } from '../../gen/ping/v1/services_pb.js';
import { UpdateLogRequestSchema } from '../../gen/runner/v1/messages_pb.js';
import { RunnerService } from '../../gen/runner/v1/services_pb.js';
import { toConnectError } from './connect-errors.ts';
import { pingService } from './ping-service.ts';
import {
  createJsonBodyParser,
  createProtoBodyParser,
  type DecodedBodies,
  decodedBody,
  useDecodedBody,
} from './proto-body.ts';
import { requestGzip } from './request-gzip.ts';
import {
  authenticateBeforeBody,
  authenticatedRunner,
  runnerAuthInterceptor,
} from './runner-auth.ts';
import { RunnerPacing } from './runner-pacing.ts';
import type { RunnerRecord, RunnerRegistry } from './runner-registry.ts';
import { type BaseUrlOf, createRunnerService } from './runner-service.ts';
import type { RunnerTasks } from './runner-tasks.ts';
import { decodeUpdateLogRequest } from './update-log-decoder.ts';

/** The services mounted under `/api/actions`. */
export const services = [PingService, RunnerService] as const;

type RouteHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * The Connect side of `/api/actions`: Connect's own Fastify adapter with both services, the
 * binary body check and the error mapping. Loaded with the first call under the prefix (see
 * actions.routes.ts), so a server that no runner talks to never holds Connect, protobuf or their
 * message descriptors.
 *
 * The routes themselves are mounted before the server starts, so `fastifyConnectPlugin` cannot
 * add them then; it runs here against a recorder of the routes it adds instead, and each mounted
 * route calls the handler the adapter made for its path. The adapter's body parsers are not
 * needed: the prefix's own parsers leave the body as Connect expects it.
 *
 * The recorder offers only what the adapter calls today (`all` and `addContentTypeParser`): an
 * upgrade of `@connectrpc/connect-fastify` that registers its routes another way makes
 * connect-runtime.test.ts fail, since it builds a runtime and compares the paths it recorded.
 */
export class ConnectRuntime {
  readonly #handlers = new Map<string, RouteHandler>();
  readonly parseProtoBody: ReturnType<typeof createProtoBodyParser>;
  readonly parseJsonBody: ReturnType<typeof createJsonBodyParser>;
  readonly #runners: RunnerRegistry;
  /** Runners whose headers were checked before their call's body was read. */
  readonly #authenticated = new WeakMap<FastifyRequest, RunnerRecord>();
  readonly #pacing: RunnerPacing;
  /** Log uploads without Content-Length, by the runner their bytes are charged to as read. */
  readonly #undeclared = new WeakMap<FastifyRequest, string>();

  constructor(
    runners: RunnerRegistry,
    maxRequestBytes: number,
    tasks?: { readonly tasks: RunnerTasks; readonly baseUrl: (request: FastifyRequest) => string },
    pacing = new RunnerPacing(),
  ) {
    this.#pacing = pacing;
    const baseUrlOf: BaseUrlOf = (context) => context.values.get(requestBaseUrl);
    const decoded: DecodedBodies = new WeakMap();
    // UpdateLog carries a job's whole output, 100 rows a call: it has a decoder of its own.
    const decoders = new Map([[UpdateLogRequestSchema, decodeUpdateLogRequest]]);
    const parseProto = createProtoBodyParser(services, maxRequestBytes, decoded, decoders);
    const parseJson = createJsonBodyParser(maxRequestBytes);
    this.parseProtoBody = (request, payload) =>
      parseProto(request, this.#counted(request, payload));
    this.parseJsonBody = (request, payload) => parseJson(request, this.#counted(request, payload));
    this.#runners = runners;
    const recorder = {
      all: (path: string, _options: unknown, handler: RouteHandler) => {
        this.#handlers.set(path, handler);
      },
      addContentTypeParser: () => {},
    };
    fastifyConnectPlugin(
      recorder as unknown as FastifyInstance,
      {
        routes: (router: ConnectRouter) => {
          router.service(PingService, pingService);
          router.service(RunnerService, createRunnerService(runners, tasks?.tasks, baseUrlOf));
        },
        grpc: false,
        grpcWeb: false,
        readMaxBytes: maxRequestBytes,
        // gzip only, as connect-go (Gitea's server) accepts: connect-es answers a corrupt brotli
        // body with `internal` (500) instead of `invalid_argument`; `br` now gets `unimplemented`.
        acceptCompression: [requestGzip],
        // The first interceptor is the outermost: it also maps what the auth check throws.
        interceptors: [mapErrors, useDecodedBody, runnerAuthInterceptor(runners)],
        contextValues: (request) =>
          createContextValues()
            .set(requestLog, request.log)
            .set(decodedBody, decoded.get(request))
            .set(authenticatedRunner, this.#authenticated.get(request))
            .set(requestBaseUrl, tasks?.baseUrl(request) ?? ''),
      },
      (error) => {
        if (error) throw error;
      },
    );
  }

  /**
   * Checks the runner headers before the body is read (see `authenticateBeforeBody`); what it
   * throws is answered by `sendError`, the body left unread. Refusals and log uploads wait
   * their turn first (runner-pacing.ts), the body still unread.
   */
  async authenticate(request: FastifyRequest): Promise<void> {
    let runner: RunnerRecord | undefined;
    try {
      runner = await authenticateBeforeBody(this.#runners, request);
    } catch (error) {
      if (error instanceof ConnectError && error.code === Code.Unauthenticated) {
        if (!(await this.#pacing.refusal())) request.raw.socket.destroy();
      }
      throw error;
    }
    if (runner === undefined) return;
    this.#authenticated.set(request, runner);
    if (request.routeOptions.url?.endsWith(UPDATE_LOG) !== true) return;
    const length = request.headers['content-length'];
    const declared = length === undefined ? undefined : Number(length);
    if (declared === undefined) this.#undeclared.set(request, runner.id);
    if (!(await this.#pacing.logUpload(runner.id, declared ?? 0))) {
      throw new ConnectError('log uploads too fast; retry shortly', Code.ResourceExhausted);
    }
  }

  /** The body as read, its bytes charged to its runner's log pace if it declared no length. */
  #counted(request: FastifyRequest, payload: AsyncIterable<Uint8Array>) {
    const runnerId = this.#undeclared.get(request);
    if (runnerId === undefined) return payload;
    const pacing = this.#pacing;
    return (async function* () {
      for await (const chunk of payload) {
        pacing.charge(runnerId, chunk.byteLength);
        yield chunk;
      }
    })();
  }

  /** The procedures served, as paths below the prefix (`/ping.v1.PingService/Ping`). */
  get paths(): string[] {
    return [...this.#handlers.keys()];
  }

  /** Answers one call to `path` (below the prefix) with Connect's handler for it. */
  async handle(path: string, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const handler = this.#handlers.get(path);
    // Only the paths of PROCEDURES are routed here, and a test holds them equal to `services`.
    if (handler === undefined) throw new ConnectError('unknown procedure', Code.Unimplemented);
    await handler(request, reply);
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

const UPDATE_LOG = `/${RunnerService.typeName}/${RunnerService.method.updateLog.name}`;

const requestLog = createContextKey<FastifyBaseLogger | undefined>(undefined, {
  description: 'the Fastify request logger',
});

const requestBaseUrl = createContextKey<string>('', {
  description: "the request's external base URL",
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
