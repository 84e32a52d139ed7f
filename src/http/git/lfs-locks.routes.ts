import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type LfsLockService, LockTaken } from '../../domain/lfs/lfs-lock.service.ts';
import type { VisibleRepo } from '../../domain/repos/repo.types.ts';
import type { User } from '../../domain/users/user.types.ts';
import { viewerUser } from '../auth/viewer.ts';
import { LFS_JSON, lockJson, readLfsJson } from './lfs-wire.ts';

type RepoParams = { owner: string; name: string };
type LockQuerystring = { path?: string; id?: string; cursor?: string; limit?: string };

export type LfsLockRouteDeps = {
  readonly locks: LfsLockService;
  /** git's access check for the repository of the request (write: push access). */
  readonly access: (
    request: FastifyRequest<{ Params: RepoParams }>,
    write: boolean,
  ) => Promise<VisibleRepo>;
};

/**
 * The LFS locks API: readers list locks; creating, verifying and removing them takes push
 * access, as in git-lfs's own expectations (it verifies locks before every push it makes).
 */
export function registerLfsLockRoutes(server: FastifyInstance, deps: LfsLockRouteDeps): void {
  const { locks, access } = deps;
  const writer = async (request: FastifyRequest<{ Params: RepoParams }>) => {
    const repo = await access(request, true);
    return { repo, user: viewerUser(request.viewer) as User };
  };

  server.post<{ Params: RepoParams; Body: Readable }>(
    '/:owner/:name/info/lfs/locks',
    async (request, reply) => {
      const body = await readLfsJson(request.body);
      const { repo, user } = await writer(request);
      try {
        const lock = await locks.lock(repo, user, body.path);
        return reply
          .status(201)
          .type(LFS_JSON)
          .send({ lock: lockJson(lock) });
      } catch (error) {
        if (!(error instanceof LockTaken)) throw error;
        // git-lfs shows who holds the path from the lock in a 409's body.
        return reply
          .status(409)
          .type(LFS_JSON)
          .send({ lock: lockJson(error.lock), message: error.message });
      }
    },
  );

  server.get<{ Params: RepoParams; Querystring: LockQuerystring }>(
    '/:owner/:name/info/lfs/locks',
    async (request, reply) => {
      const repo = await access(request, false);
      const page = await locks.list(repo, request.query);
      return reply.type(LFS_JSON).send({
        locks: page.locks.map(lockJson),
        ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
      });
    },
  );

  server.post<{ Params: RepoParams; Body: Readable }>(
    '/:owner/:name/info/lfs/locks/verify',
    async (request, reply) => {
      const body = await readLfsJson(request.body);
      const { repo, user } = await writer(request);
      const verified = await locks.verify(repo, user, {
        cursor: typeof body.cursor === 'string' ? body.cursor : undefined,
        limit: typeof body.limit === 'number' ? body.limit : undefined,
      });
      return reply.type(LFS_JSON).send({
        ours: verified.ours.map(lockJson),
        theirs: verified.theirs.map(lockJson),
        ...(verified.nextCursor ? { next_cursor: verified.nextCursor } : {}),
      });
    },
  );

  server.post<{ Params: RepoParams & { id: string }; Body: Readable }>(
    '/:owner/:name/info/lfs/locks/:id/unlock',
    async (request, reply) => {
      const body = await readLfsJson(request.body);
      const { repo, user } = await writer(request);
      const lock = await locks.unlock(repo, user, request.params.id, body.force === true);
      return reply.type(LFS_JSON).send({ lock: lockJson(lock) });
    },
  );
}
