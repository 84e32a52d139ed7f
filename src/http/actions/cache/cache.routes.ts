import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CiCacheService } from '../../../domain/ci/cache/cache.service.ts';
import { DomainError, Unauthenticated } from '../../../domain/errors.ts';
import { isRecord } from '../../../lib/narrow.ts';
import { errorStatus } from '../../../lib/thrown.ts';
import { statusOf } from '../../errors/error-table.ts';
import { sendObject } from '../../git/lfs-download.ts';
import {
  entryId,
  parseContentRange,
  parseRange,
  readJsonObject,
  sizeField,
  stringField,
} from './cache-wire.ts';

/** Where the cache service lives; runners set `ACTIONS_CACHE_URL` to it (trailing slash). */
export const CACHE_PREFIX = '/api/actions_cache';

/** What the cache protocol uses. */
export type CacheRouteDeps = {
  readonly caches: Pick<CiCacheService, 'find' | 'reserve' | 'upload' | 'commit' | 'download'>;
  /**
   * The running task a bearer token stands for, or undefined. The one place the protocol's
   * credential is read, so another kind of runtime token changes only this function.
   */
  readonly taskOfBearer: (token: string) => Promise<number | undefined>;
  /** The external base URL of a request, for the archive links. */
  readonly baseUrl: (request: FastifyRequest) => string;
};

type IdParams = { id: string };

/** The task behind the request's `Authorization: Bearer …`; 401 without a live one. */
async function callerOf(request: FastifyRequest, deps: CacheRouteDeps): Promise<number> {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  const taskId = match?.[1] ? await deps.taskOfBearer(match[1]) : undefined;
  if (taskId === undefined) throw new Unauthenticated('a running task’s token is required');
  return taskId;
}

function answerError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof DomainError) {
    return reply.status(statusOf(error.code, 'cache')).send({ message: error.message });
  }
  const status = errorStatus(error);
  if (status !== undefined && status >= 400 && status < 500) {
    return reply.status(status).send({ message: 'bad request' });
  }
  request.log.error({ err: error }, 'cache request failed');
  return reply.status(500).send({ message: 'internal server error' });
}

/**
 * The REST cache protocol `actions/cache` speaks off github.com, under
 * `/api/actions_cache/_apis/artifactcache/`: lookups, reservations, uploads in ranged parts,
 * commits (all for a running task's bearer) and downloads (by signed link, as the client fetches
 * archives without credentials). Bodies are read here: upload parts stream straight to storage.
 */
export function registerCacheRoutes(fastify: FastifyInstance, deps: CacheRouteDeps): void {
  const { caches } = deps;
  fastify.register(
    async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
      scope.setErrorHandler(answerError);
      scope.setNotFoundHandler((_request, reply) =>
        reply.status(404).send({ message: 'no such cache endpoint' }),
      );

      scope.get('/cache', async (request, reply) => {
        const taskId = await callerOf(request, deps);
        const query = isRecord(request.query) ? request.query : {};
        const keys = typeof query.keys === 'string' ? query.keys.split(',') : [];
        const version = typeof query.version === 'string' ? query.version : '';
        const hit = await caches.find(taskId, keys, version);
        if (!hit) return reply.status(204).send();
        const { id, expires, sig } = hit.link;
        const archiveLocation = `${deps.baseUrl(request)}${CACHE_PREFIX}/_apis/artifactcache/artifacts/${id}?expires=${expires}&sig=${sig}`;
        return { result: 'hit', archiveLocation, cacheKey: hit.entry.key, scope: hit.entry.scope };
      });

      scope.post('/caches', async (request) => {
        const taskId = await callerOf(request, deps);
        const body = await readJsonObject(request.raw);
        const id = await caches.reserve(
          taskId,
          stringField(body, 'key'),
          stringField(body, 'version'),
          sizeField(body, 'cacheSize'),
        );
        return { cacheId: id };
      });

      scope.patch<{ Params: IdParams }>('/caches/:id', async (request, reply) => {
        const taskId = await callerOf(request, deps);
        const range = parseContentRange(request.headers['content-range']);
        await caches.upload(taskId, entryId(request.params.id), range, request.raw);
        return reply.status(204).send();
      });

      scope.post<{ Params: IdParams }>('/caches/:id', async (request, reply) => {
        const taskId = await callerOf(request, deps);
        const body = await readJsonObject(request.raw);
        const size = sizeField(body, 'size');
        await caches.commit(taskId, entryId(request.params.id), size ?? -1);
        return reply.status(204).send();
      });

      scope.get<{ Params: IdParams }>('/artifacts/:id', async (request, reply) => {
        const query = isRecord(request.query) ? request.query : {};
        const expires = Number(query.expires);
        const sig = typeof query.sig === 'string' ? query.sig : '';
        const archive = await caches.download({
          id: entryId(request.params.id),
          expires: Number.isSafeInteger(expires) ? expires : 0,
          sig,
        });
        reply.header('accept-ranges', 'bytes').type('application/octet-stream');
        const range = parseRange(request.headers.range, archive.size);
        if (range && (range.start > range.end || range.start >= archive.size)) {
          return reply.status(416).header('content-range', `bytes */${archive.size}`).send();
        }
        if (!range) reply.header('content-length', archive.size);
        else {
          reply
            .status(206)
            .header('content-range', `bytes ${range.start}-${range.end}/${archive.size}`)
            .header('content-length', range.end - range.start + 1);
        }
        await sendObject(request, reply, (sink) => archive.copy(range, sink));
      });
    },
    { prefix: `${CACHE_PREFIX}/_apis/artifactcache` },
  );
}
