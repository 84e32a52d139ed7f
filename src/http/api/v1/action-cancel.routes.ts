import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { RunCancelService } from '../../../domain/ci/run-cancel.service.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import { Type } from '../../../present/schemas/type.ts';
import { requireUser } from '../../auth/api-auth.ts';
import { RunParams } from './actions.routes.ts';

/** What the cancel route uses. */
export type ActionCancelRoutesDeps = {
  readonly cancels: Pick<RunCancelService, 'cancelUnfinished'>;
};

/** Cancelling a workflow run, at GitHub's and Gitea's path. */
export function registerActionCancelRoutes(
  parent: FastifyInstance,
  deps: ActionCancelRoutesDeps,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  // 202 with an empty object once every unfinished job is cancelled (a running job's runner
  // learns it from its next report); a run that had already finished is 409, readers get 403,
  // outsiders of a private repository and unknown runs 404.
  server.post(
    '/repos/:owner/:name/actions/runs/:run/cancel',
    {
      schema: {
        summary: 'Cancel a workflow run that has not finished',
        tags: ['repository'],
        params: RunParams,
        response: {
          202: Type.Object({}),
          ...errorResponses,
          409: errorResponses[404],
        },
      },
    },
    async (request, reply) => {
      const { owner, name, run } = request.params;
      await deps.cancels.cancelUnfinished(requireUser(request), owner, name, run);
      return reply.status(202).send({});
    },
  );
}
