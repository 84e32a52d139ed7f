import { randomUUID } from 'node:crypto';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Config } from '../config/config.ts';
import { uncontrolledActionOwners } from '../domain/admin/action-owners.ts';
import { ACTIONS_SOURCE_PATH } from '../domain/ci/task-context.ts';
import type { DomainServices } from '../domain/services.ts';
import type { CacheRegistry } from '../lib/cache-registry.ts';
import { errorStatus } from '../lib/thrown.ts';
import { registerActionsRoutes } from './actions/actions.routes.ts';
import { registerPipelineArtifactRoutes } from './actions/artifact-pipeline.routes.ts';
import { registerV4ArtifactRoutes } from './actions/artifact-v4.routes.ts';
import { registerCacheRoutes } from './actions/cache/cache.routes.ts';
import { apiV1Plugin } from './api/v1/api.plugin.ts';
import { registerApiDocs } from './api/v1/docs.ts';
import { ANONYMOUS, type Viewer } from './auth/viewer.ts';
import { baseUrlOf } from './base-url.ts';
import { frameworkErrorHandler } from './errors/api-errors.ts';
import { sendErrorPage } from './errors/web-errors.ts';
import { registerFederation } from './federation/federation.plugin.ts';
import { actionsSourcePlugin } from './git/actions-source.routes.ts';
import { archivePlugin, sendArchive } from './git/archive.routes.ts';
import { lfsPlugin } from './git/lfs.routes.ts';
import { smartHttpPlugin } from './git/smart-http.routes.ts';
import { AccessLog } from './plugins/access-log.ts';
import { registerFiniteNumbers } from './plugins/finite-numbers.ts';
import { registerHealth } from './plugins/health.ts';
import { registerMetrics } from './plugins/metrics.ts';
import { registerPrivateAnswers } from './plugins/private-answers.ts';
import { recordRoutes } from './plugins/route-catalog.ts';
import { lazySchemaCompilers } from './plugins/schema-compilers.ts';
import { closeSilentClients } from './silent-clients.ts';
import { Pages } from './web/page.ts';
import { viewerFromSession } from './web/session-cookie.ts';
import { webPlugin } from './web/web.plugin.ts';

const kViewer = Symbol('kiln.viewer');
type ViewerSlot = FastifyRequest & { [kViewer]: Viewer | null };

export type ServerOptions = {
  /** A pino destination; defaults to stderr (so stdout stays free for the `listening` line). */
  logStream?: NodeJS.WritableStream;
};

/** What the server is built from: Kiln's services and settings, and its background work. */
export type ServedKiln = {
  readonly config: Config;
  readonly services: DomainServices;
  /** The process's caches, for /metrics (absent: none reported). */
  readonly caches?: Pick<CacheRegistry, 'readings' | 'addEach'>;
  /** Starts the timers and workers of a serving process, once the server is ready. */
  startBackgroundWork(): void;
};

/**
 * Builds the Fastify instance with every surface registered explicitly: health and metrics, the
 * REST API, and the pages. Nothing listens here; `main.ts` (or a test) does.
 */
export async function buildServer(
  app: ServedKiln,
  options: ServerOptions = {},
): Promise<FastifyInstance> {
  const { config } = app;
  const server = Fastify({
    logger: {
      level: config.logLevel,
      stream: options.logStream ?? process.stderr,
      // No header is ever logged: the request serializer below keeps method and path, and
      // Fastify's response serializer only the status. (Pino redaction of header paths was dead
      // weight on top of that, and cost about a quarter of the CPU of a small API request.)
      serializers: {
        // The request id is on every line already, as `reqId`.
        req: (request: { method: string; url: string }) => ({
          method: request.method,
          // Query strings can carry secrets (legacy ?token=); log the path only.
          url: request.url.split('?')[0],
        }),
      },
    },
    logController: new AccessLog(),
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    trustProxy: config.trustProxy.length > 0 ? [...config.trustProxy] : false,
    bodyLimit: config.http.bodyLimitBytes,
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    // Without it a client that stops reading an answer holds its connection, the answer's buffers
    // and a drain on SIGTERM for as long as it likes: no byte moves, so no other timeout fires.
    connectionTimeout: config.http.idleTimeoutMs,
    routerOptions: { maxParamLength: 1000, ignoreDuplicateSlashes: false },
    return503OnClosing: true,
    // Node enforces the headers and request timeouts only when it checks its connections, every
    // 30 s by default, so a client trickling its headers outlived a shorter timeout by that much.
    http: {
      connectionsCheckingInterval: Math.min(
        30_000,
        Math.max(100, Math.floor(config.http.headersTimeoutMs / 4)),
      ),
    },
    frameworkErrors: frameworkErrorHandler(config),
    schemaController: { compilersFactory: lazySchemaCompilers() },
  });
  server.server.headersTimeout = config.http.headersTimeoutMs;
  // A process that serves also works in the background (webhooks, CI sweeps, schedules).
  server.addHook('onReady', async () => app.startBackgroundWork());
  recordRoutes(server);
  registerPrivateAnswers(server);
  registerFiniteNumbers(server);
  for (const handle of await app.services.users.unclaimedAdminHandles()) {
    server.log.warn(
      { handle },
      'SERVICE_ADMIN_HANDLES lists a handle no account holds; sign-up refuses it, create it with `user create`',
    );
  }

  const squatted = await uncontrolledActionOwners(app.services);
  if (squatted.length > 0) {
    server.log.warn(
      { handles: squatted.map((owner) => owner.handle) },
      'service.ci.action-owners names accounts that administrators do not control; runners fetch host-less actions from them. Run `kiln doctor` for what to do',
    );
  }

  // Anonymous until an auth hook of the API, the pages or git says otherwise. A getter rather
  // than a hook that sets it: every request would run that hook.
  server.decorateRequest<Viewer | null>(kViewer, null);
  server.decorateRequest('viewer', {
    getter(this: FastifyRequest): Viewer {
      return (this as ViewerSlot)[kViewer] ?? ANONYMOUS;
    },
    setter(this: FastifyRequest, viewer: Viewer) {
      (this as ViewerSlot)[kViewer] = viewer;
    },
  });
  await server.register(cookie);
  await server.register(formbody, { bodyLimit: config.http.bodyLimitBytes });

  const pages = new Pages({ services: app.services, config: app.config, caches: app.caches });
  // After in-flight requests have finished: the render workers go with the server.
  server.addHook('onClose', () => pages.renderer.close());
  // Node closes a connection silent for `connectionTimeout` itself only when no request, answer
  // or server listener takes the timeout over; here it goes whatever else heard it, when the
  // silence is the client's.
  closeSilentClients(server.server, config.http.idleTimeoutMs);
  // A request in flight when draining starts (a render may take seconds) leaves its keep-alive
  // connection open once answered, and closing waits for every connection: with the usual
  // keep-alive timeout, as long as a minute. While draining, an answered connection that falls
  // idle is closed at once instead (Node times idle connections out by this value).
  server.addHook('preClose', (done) => {
    server.server.keepAliveTimeout = 1;
    server.server.keepAliveTimeoutBuffer = 0;
    done();
  });
  server.setNotFoundHandler(async (request, reply) => {
    request.viewer = await viewerFromSession(app.services, request).catch(() => ANONYMOUS);
    return sendErrorPage(
      pages,
      request,
      reply,
      404,
      'There is nothing here, or you may not see it.',
    );
  });
  server.setErrorHandler((error, request, reply) => {
    const status = errorStatus(error);
    if (status !== undefined && status >= 400 && status < 500) {
      return reply.status(status).type('text/plain').send('bad request');
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).type('text/plain').send('internal server error');
  });

  registerHealth(server, { services: app.services });
  registerMetrics(
    server,
    config,
    () => app.services.housekeeping.stats(),
    () => app.caches?.readings() ?? [],
  );
  registerApiDocs(server, { config: app.config });
  await server.register(apiV1Plugin, {
    prefix: '/api/v1',
    services: app.services,
    config: app.config,
    caches: app.caches,
    sendArchive: async (reply, repo, target) =>
      sendArchive(reply, await app.services.archives.open(repo, target)),
  });
  const { ciDispatch, ciReports } = app.services;
  registerActionsRoutes(server, {
    runners: app.services.runners,
    tasks: {
      fetchTask: (runner, version, baseUrl) => ciDispatch.fetchTask(runner, version, baseUrl),
      updateTask: (runner, report) => ciReports.updateTask(runner, report),
      updateLog: (runner, taskId, index, rows, noMore) =>
        ciReports.updateLog(runner, taskId, index, rows, noMore),
    },
    baseUrl: (request) => baseUrlOf(request, app.config),
  });
  registerCacheRoutes(server, {
    caches: app.services.ciCaches,
    taskOfBearer: async (token) =>
      (await app.services.ciTaskTokens.authenticateRuntime(token))?.taskId,
    baseUrl: (request) => baseUrlOf(request, app.config),
  });
  registerPipelineArtifactRoutes(server, {
    artifacts: app.services.ciArtifacts,
    baseUrl: (request) => baseUrlOf(request, app.config),
  });
  registerV4ArtifactRoutes(server, {
    artifacts: app.services.ciArtifactsV4,
    baseUrl: (request) => baseUrlOf(request, app.config),
  });
  await registerFederation(server, {
    federation: app.services.federation,
    openRegistrations: config.signup.enabled,
    wanted: config.federation.enabled,
  });
  await server.register(actionsSourcePlugin, {
    prefix: ACTIONS_SOURCE_PATH,
    services: app.services,
  });
  await server.register(smartHttpPlugin, { services: app.services, config: app.config });
  if (config.lfs.enabled) {
    await server.register(lfsPlugin, { services: app.services, config: app.config });
  }
  await server.register(archivePlugin, { services: app.services, pages });
  await server.register(webPlugin, { services: app.services, config: app.config, pages });
  return server;
}
