import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { DomainServices } from '../../../domain/services.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import { Type } from '../../../present/schemas/type.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { RAW_POLICY, withoutBody } from '../../raw-answers.ts';
import { repoParamsWith } from './params.ts';

const Params = repoParamsWith({ '*': Type.String({ maxLength: 4096 }) });
const Query = Type.Object({ ref: Type.Optional(Type.String({ maxLength: 1024 })) });

/**
 * `GET /repos/{owner}/{name}/media/{path}?ref=`, as Gitea serves it: a file's bytes at a
 * branch, tag or commit (the default branch without `ref`), and for a file stored with Git
 * LFS the object's bytes rather than its pointer.
 */
export function registerMediaRoutes(
  parent: FastifyInstance,
  deps: { readonly services: Pick<DomainServices, 'code'> },
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { code } = deps.services;
  server.get(
    '/repos/:owner/:name/media/*',
    {
      schema: {
        summary: 'A file’s bytes, resolving Git LFS pointers',
        tags: ['repository'],
        params: Params,
        querystring: Query,
        response: errorResponses,
      },
    },
    async (request, reply) => {
      const { owner, name, '*': path } = request.params;
      const visible = await code.open(viewerUser(request.viewer), owner, name);
      const ref = request.query.ref || (await code.defaultBranch(visible));
      const location = await code.locate(visible, `${ref}/${path}`);
      const item = await code.stat(visible, location);
      const file = await code.raw(visible, item);
      // Bytes, not a JSON shape: sent through the untyped reply, as archives are.
      const bytes: FastifyReply = reply;
      bytes
        .header('Content-Security-Policy', RAW_POLICY)
        .header('X-Content-Type-Options', 'nosniff')
        .header('Content-Length', String(file.sizeBytes))
        .type(file.binary ? 'application/octet-stream' : 'text/plain; charset=utf-8');
      if (file.stream && request.method === 'HEAD') return bytes.send(withoutBody(file.stream));
      return bytes.send(file.stream ?? file.content);
    },
  );
}
