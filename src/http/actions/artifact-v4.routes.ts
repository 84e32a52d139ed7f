import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Artifact } from '../../domain/ci/artifacts/artifact.types.ts';
import type {
  BackendIds,
  V4ArtifactService,
} from '../../domain/ci/artifacts/v4-artifact.service.ts';
import { Invalid } from '../../domain/errors.ts';
import type { IncomingMessage } from '../../lib/node-http.ts';
import { rfc3339 } from '../../lib/time.ts';
import { sendObject } from '../git/lfs-download.ts';
import { artifactFailure, bearerOf, sendArtifactError } from './artifact-requests.ts';
import { ARTIFACT_CHUNK_BYTES, ARTIFACT_JSON_BYTES } from './body-limits.ts';

/** The Twirp service the v4 client calls at the origin of `ACTIONS_RESULTS_URL`. */
export const ARTIFACT_TWIRP_PREFIX = '/twirp/github.actions.results.api.v1.ArtifactService';
/** Where signed blob URLs point: three path segments, as the Azure SDK parses them. */
export const ARTIFACT_BLOB_PREFIX = '/api/actions_artifacts';

/** The largest block list: ids of an artifact of many thousand 8 MiB blocks. */
const BLOCK_LIST_BYTES = 4 * 1024 * 1024;

export type V4ArtifactDeps = {
  readonly artifacts: V4ArtifactService;
  readonly baseUrl: (request: FastifyRequest) => string;
};

type Body = Record<string, unknown>;
type Query = Record<string, string | undefined>;

/** A protojson field by its snake_case or camelCase name; wrappers (`{value}`) unwrapped. */
function field(body: Body, snake: string): unknown {
  const camel = snake.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  const value = body[snake] ?? body[camel];
  return typeof value === 'object' && value !== null && 'value' in value
    ? (value as { value: unknown }).value
    : value;
}

function idsOf(body: Body): BackendIds {
  return {
    runBackendId: String(field(body, 'workflow_run_backend_id') ?? ''),
    jobBackendId: String(field(body, 'workflow_job_run_backend_id') ?? ''),
  };
}

/** Twirp's error codes by the status a failure maps to. */
const TWIRP_CODES: Readonly<Record<number, string>> = {
  401: 'unauthenticated',
  403: 'permission_denied',
  404: 'not_found',
  409: 'already_exists',
  413: 'resource_exhausted',
  422: 'invalid_argument',
};

/** Twirp's error body: `{code, msg}` with the status the code maps to. */
function sendTwirpError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const { status, message } = artifactFailure(error, request, reply);
  return reply.status(status).send({ code: TWIRP_CODES[status] ?? 'internal', msg: message });
}

/**
 * The v4 artifact protocol: Twirp's `ArtifactService` (JSON, snake_case, unknown fields
 * ignored) authorised by the runtime token, and the signed blob URLs it hands out, which the
 * client's Azure SDK uploads blocks and block lists to (answered 201) and downloads the zip
 * from. Blob requests carry no token: their signature is the authorisation.
 */
export function registerV4ArtifactRoutes(fastify: FastifyInstance, deps: V4ArtifactDeps): void {
  const { artifacts } = deps;
  const blobUrl = (request: FastifyRequest, artifact: Artifact, signed: string) =>
    `${deps.baseUrl(request)}${ARTIFACT_BLOB_PREFIX}/kiln/artifacts/${artifact.id}.zip?${signed}`;
  const wire = (artifact: Artifact) => ({
    workflow_run_backend_id: artifact.runId,
    workflow_job_run_backend_id: String(artifact.taskId),
    database_id: String(artifact.id),
    name: artifact.name,
    size: String(artifact.size),
    created_at: rfc3339(artifact.createdAt),
  });

  const methods: Record<string, (request: FastifyRequest, body: Body) => Promise<unknown>> = {
    async CreateArtifact(request, body) {
      const task = await artifacts.task(bearerOf(request), idsOf(body), true);
      const artifact = await artifacts.create(task, field(body, 'name'), field(body, 'expires_at'));
      const signed = artifacts.sign({
        artifactId: artifact.id,
        taskId: task.taskId,
        kind: 'upload',
      });
      return { ok: true, signed_upload_url: blobUrl(request, artifact, signed) };
    },
    async FinalizeArtifact(request, body) {
      const task = await artifacts.task(bearerOf(request), idsOf(body), true);
      const artifact = await artifacts.finalize(task, field(body, 'name'), field(body, 'size'));
      return { ok: true, artifact_id: String(artifact.id) };
    },
    async ListArtifacts(request, body) {
      const task = await artifacts.task(bearerOf(request), idsOf(body), false);
      const name = field(body, 'name_filter');
      const id = field(body, 'id_filter');
      const listed = await artifacts.list(task, {
        name: typeof name === 'string' ? name : undefined,
        id: id === undefined ? undefined : Number(id),
      });
      return { artifacts: listed.map(wire) };
    },
    async GetSignedArtifactURL(request, body) {
      const task = await artifacts.task(bearerOf(request), idsOf(body), false);
      const artifact = await artifacts.byName(task, field(body, 'name'));
      const signed = artifacts.sign({
        artifactId: artifact.id,
        taskId: task.taskId,
        kind: 'download',
      });
      return { signed_url: blobUrl(request, artifact, signed) };
    },
    async DeleteArtifact(request, body) {
      const task = await artifacts.task(bearerOf(request), idsOf(body), false);
      const artifact = await artifacts.delete(task, field(body, 'name'));
      return { ok: true, artifact_id: String(artifact.id) };
    },
  };

  fastify.register(
    async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser(
        'application/json',
        { parseAs: 'string', bodyLimit: ARTIFACT_JSON_BYTES },
        (_request, body, done) => {
          try {
            const parsed: unknown = body === '' ? {} : JSON.parse(String(body));
            if (typeof parsed !== 'object' || parsed === null) throw new Error('not an object');
            done(null, parsed);
          } catch {
            done(new Invalid('request body is not a JSON object'), undefined);
          }
        },
      );
      scope.setErrorHandler(sendTwirpError);
      scope.post<{ Params: { method: string } }>('/:method', async (request) => {
        const method = Object.hasOwn(methods, request.params.method)
          ? methods[request.params.method]
          : undefined;
        if (method === undefined) throw new Invalid(`unknown method ${request.params.method}`);
        return method(request, (request.body ?? {}) as Body);
      });
    },
    { prefix: ARTIFACT_TWIRP_PREFIX },
  );

  fastify.register(
    async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
      scope.setErrorHandler(sendArtifactError);
      scope.put<{ Querystring: Query }>('/kiln/artifacts/:blob', async (request, reply) => {
        const length = Number(request.headers['content-length']);
        if (!Number.isSafeInteger(length) || length < 0)
          throw new Invalid('Content-Length is required');
        const body = request.body as IncomingMessage;
        if (request.query.comp === 'blocklist') {
          if (length > BLOCK_LIST_BYTES) throw new Invalid('block list too long');
          const chunks: Buffer[] = [];
          for await (const chunk of body) chunks.push(chunk as Buffer);
          const xml = Buffer.concat(chunks).toString('utf8');
          const ids = [...xml.matchAll(/<(Latest|Committed|Uncommitted)>([^<]{1,100})<\/\1>/g)].map(
            (m) => m[2] ?? '',
          );
          await artifacts.commitBlocks(request.query, ids);
        } else {
          if (length > ARTIFACT_CHUNK_BYTES)
            throw new Invalid(`a block may not pass ${ARTIFACT_CHUNK_BYTES} bytes`);
          await artifacts.writeBlob(request.query, length, body);
        }
        return reply.status(201).header('x-ms-request-server-encrypted', 'false').send();
      });
      scope.get<{ Querystring: Query }>('/kiln/artifacts/:blob', async (request, reply) => {
        const blob = await artifacts.readBlob(request.query);
        reply.type('application/zip').header('content-length', blob.size);
        await sendObject(request, reply, blob.copy);
      });
    },
    { prefix: ARTIFACT_BLOB_PREFIX },
  );
}
