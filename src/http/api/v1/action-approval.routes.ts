import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { RunApprovalService } from '../../../domain/ci/run-approval.service.ts';
import type { RunQueryService } from '../../../domain/ci/run-query.service.ts';
import { toApiWorkflowRun } from '../../../present/action.ts';
import { ApiActionWorkflowRunSchema } from '../../../present/schemas/action.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import { requireUser } from '../../auth/api-auth.ts';
import { type BaseUrlConfig, baseUrlOf } from '../../base-url.ts';
import { RunParams } from './actions.routes.ts';

/** What the approval route uses. */
export type ActionApprovalRoutesDeps = {
  readonly runs: Pick<RunQueryService, 'getRun'>;
  /** Approval of runs for pull requests from forks. */
  readonly approvals: Pick<RunApprovalService, 'approve'>;
  readonly config: BaseUrlConfig;
};

const tags = ['repository'];

/** Approving a workflow run of a pull request from a fork (src/domain/ci/fork-approval.ts). */
export function registerActionApprovalRoutes(
  parent: FastifyInstance,
  deps: ActionApprovalRoutesDeps,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { runs } = deps;
  // GitHub's path. A writer's approval lets every waiting run of the run's pull request go and
  // answers 200 with the run as it now is (again 200, unchanged, once approved); readers get
  // 403, outsiders of a private repository and unknown runs 404, a run that never needed
  // approval 409.
  server.post(
    '/repos/:owner/:name/actions/runs/:run/approve',
    {
      schema: {
        summary:
          'Approve a workflow run of a pull request from a fork, and its pull’s other waiting runs',
        tags,
        params: RunParams,
        response: { 200: ApiActionWorkflowRunSchema, ...errorResponses, 409: errorResponses[404] },
      },
    },
    async (request) => {
      const user = requireUser(request);
      const { owner, name, run: number } = request.params;
      const run = await deps.approvals.approve(user, owner, name, number);
      const { repo } = await runs.getRun(user, owner, name, number);
      return toApiWorkflowRun(run, repo, baseUrlOf(request, deps.config));
    },
  );
}
