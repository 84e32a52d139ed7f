import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Artifact } from '../../domain/ci/artifacts/artifact.types.ts';
import type { PipelineArtifactService } from '../../domain/ci/artifacts/pipeline-artifact.service.ts';
import { Invalid } from '../../domain/errors.ts';
import { isRecord } from '../../lib/narrow.ts';
import type { IncomingMessage } from '../../lib/node-http.ts';
import { bearerOf, idParam, parseContentRange, sendArtifactError } from './artifact-requests.ts';
import { ARTIFACT_JSON_BYTES } from './body-limits.ts';

/** Where runners point `ACTIONS_RUNTIME_URL` (act_runner, the Forgejo runner, `kiln runner`). */
export const PIPELINE_PREFIX = '/api/actions_pipeline';

const ARTIFACTS = '/_apis/pipelines/workflows/:run/artifacts';

export type PipelineArtifactDeps = {
  readonly artifacts: Pick<
    PipelineArtifactService,
    'task' | 'createContainer' | 'writeChunk' | 'finalize' | 'list' | 'items' | 'openFile'
  >;
  /** The external base URL of a request, without a trailing slash. */
  readonly baseUrl: (request: FastifyRequest) => string;
};

type RunParams = { run: string };
type ItemParams = { run: string; id: string };
type Query = Record<string, string | undefined>;

/** A JSON body's field, by its PascalCase or camelCase name (the toolkit sends PascalCase). */
function field(body: unknown, name: string): unknown {
  if (!isRecord(body)) return undefined;
  const record = body;
  return record[name] ?? record[name.charAt(0).toLowerCase() + name.slice(1)];
}

/**
 * The pipeline protocol of `upload-artifact`/`download-artifact` v1–v3 (`@actions/artifact`
 * 1.x) at `{ACTIONS_RUNTIME_URL}_apis/pipelines/workflows/{run}/artifacts`: create a container,
 * `PUT` each file in `Content-Range` chunks (stored as sent, gzip included), `PATCH` to finish,
 * list, list a container's files, download one. Every call carries the task token as a bearer;
 * the domain holds each task to its own run. Chunks stream to disk unread by the framework.
 */
export function registerPipelineArtifactRoutes(
  fastify: FastifyInstance,
  deps: PipelineArtifactDeps,
): void {
  const { artifacts } = deps;
  const containerUrl = (request: FastifyRequest, run: number, id: number) =>
    `${deps.baseUrl(request)}${PIPELINE_PREFIX}/_apis/pipelines/workflows/${run}/artifacts/${id}`;
  const container = (request: FastifyRequest, run: number, artifact: Artifact) => ({
    containerId: artifact.id,
    size: artifact.state === 'confirmed' ? artifact.size : -1,
    signedContent: null,
    fileContainerResourceUrl: `${containerUrl(request, run, artifact.id)}/files`,
    type: 'actions_storage',
    name: artifact.name,
    url: containerUrl(request, run, artifact.id),
  });
  const taskOf = (request: FastifyRequest<{ Params: RunParams }>) =>
    artifacts.task(bearerOf(request), idParam(request.params.run, 'run'));

  fastify.register(
    async (scope) => {
      scope.removeAllContentTypeParsers();
      // Chunks are handed to the handler as the request stream, read only after the token.
      scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
      scope.addContentTypeParser(
        'application/json',
        { parseAs: 'string', bodyLimit: ARTIFACT_JSON_BYTES },
        (_request, body, done) => {
          try {
            done(null, body === '' ? {} : JSON.parse(String(body)));
          } catch {
            done(new Invalid('request body is not JSON'), undefined);
          }
        },
      );
      scope.setErrorHandler(sendArtifactError);

      scope.post<{ Params: RunParams }>(ARTIFACTS, async (request, reply) => {
        const task = await taskOf(request);
        const artifact = await artifacts.createContainer(
          task,
          field(request.body, 'Name'),
          field(request.body, 'RetentionDays'),
        );
        return reply.status(201).send(container(request, task.runNumber, artifact));
      });

      scope.patch<{ Params: RunParams; Querystring: Query }>(ARTIFACTS, async (request) => {
        const task = await taskOf(request);
        const artifact = await artifacts.finalize(task, request.query.artifactName);
        return container(request, task.runNumber, artifact);
      });

      scope.get<{ Params: RunParams }>(ARTIFACTS, async (request) => {
        const task = await taskOf(request);
        const value = (await artifacts.list(task)).map((artifact) =>
          container(request, task.runNumber, artifact),
        );
        return { count: value.length, value };
      });

      scope.put<{ Params: ItemParams; Querystring: Query }>(
        `${ARTIFACTS}/:id/files`,
        async (request, reply) => {
          const task = await taskOf(request);
          const range = parseContentRange(request.headers['content-range']);
          const gzip = /^gzip$/i.test(String(request.headers['content-encoding'] ?? ''));
          const original = Number(request.headers['x-tfs-filelength'] ?? range.total);
          await artifacts.writeChunk(
            task,
            idParam(request.params.id, 'artifact'),
            request.query.itemPath,
            {
              ...range,
              encoding: gzip ? 'gzip' : '',
              originalSize:
                Number.isSafeInteger(original) && original >= 0 ? original : range.total,
            },
            request.body as IncomingMessage,
          );
          return reply.status(200).send({ message: 'ok' });
        },
      );

      scope.get<{ Params: ItemParams }>(`${ARTIFACTS}/:id/files`, async (request) => {
        const task = await taskOf(request);
        const id = idParam(request.params.id, 'artifact');
        const { files } = await artifacts.items(task, id);
        const value = files.map((file) => ({
          containerId: id,
          path: file.path,
          itemType: 'file',
          status: 'created',
          fileLength: file.originalSize,
          contentLocation: `${containerUrl(request, task.runNumber, id)}/download?itemPath=${encodeURIComponent(file.path)}`,
        }));
        return { count: value.length, value };
      });

      scope.get<{ Params: ItemParams; Querystring: Query }>(
        `${ARTIFACTS}/:id/download`,
        async (request, reply) => {
          const task = await taskOf(request);
          const id = idParam(request.params.id, 'artifact');
          const { file, stream } = await artifacts.openFile(task, id, request.query.itemPath ?? '');
          if (file.encoding === 'gzip') reply.header('content-encoding', 'gzip');
          return reply
            .type('application/octet-stream')
            .header('content-length', file.size)
            .send(stream);
        },
      );
    },
    { prefix: PIPELINE_PREFIX },
  );
}
