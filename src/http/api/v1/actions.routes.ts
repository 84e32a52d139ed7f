import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RunQueryService } from '../../../domain/ci/run-query.service.ts';
import type { RerunTarget, RunRerunService } from '../../../domain/ci/run-rerun.service.ts';
import type { RunTriggerService } from '../../../domain/ci/run-trigger.service.ts';
import { toApiWorkflowJob, toApiWorkflowRun } from '../../../present/action.ts';
import {
  ApiActionWorkflowJobsResponseSchema,
  ApiActionWorkflowRunSchema,
  ApiActionWorkflowRunsResponseSchema,
} from '../../../present/schemas/action.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import { Type } from '../../../present/schemas/type.ts';
import { requireUser } from '../../auth/api-auth.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { type BaseUrlConfig, baseUrlOf } from '../../base-url.ts';
import { PagingQuerySchema, readPaging, setPagingHeaders } from './paging.ts';
import { RepoParams, repoParamsWith } from './params.ts';

/** What the Actions routes use: reading runs, and the configuration for base URLs. */
export type ActionRoutesDeps = {
  readonly runs: RunQueryService;
  /** Starting a workflow by hand (`workflow_dispatch`). */
  readonly triggers: RunTriggerService;
  /** New attempts of finished runs. */
  readonly reruns: Pick<RunRerunService, 'rerun'>;
  readonly config: BaseUrlConfig;
};

const tags = ['repository'];
/** `{owner}/{name}` and a run number. */
export const RunParams = repoParamsWith({
  run: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
});
const WorkflowParams = repoParamsWith({
  workflow: Type.String({ maxLength: 255 }),
});
const DispatchBody = Type.Object({
  ref: Type.String({ minLength: 1, maxLength: 1000 }),
  // Input name → value, every value a string (as GitHub and Gitea take them).
  inputs: Type.Optional(
    Type.Object(
      {},
      { additionalProperties: Type.String({ maxLength: 65_536 }), maxProperties: 100 },
    ),
  ),
});
const RunJobParams = repoParamsWith({
  run: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  job: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
});

const JobParams = repoParamsWith({
  job: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
});

/**
 * Workflow runs, their jobs and job logs, as Gitea 1.24+ and GitHub serve them under
 * `/repos/{owner}/{repo}/actions/`. Anyone who may read the repository may read these.
 */
export function registerActionRoutes(parent: FastifyInstance, deps: ActionRoutesDeps): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { runs } = deps;
  const base = (request: FastifyRequest) => baseUrlOf(request, deps.config);

  server.get(
    '/repos/:owner/:name/actions/runs',
    {
      schema: {
        summary: 'List the workflow runs of a repository, newest first',
        tags,
        params: RepoParams,
        querystring: PagingQuerySchema,
        response: { 200: ApiActionWorkflowRunsResponseSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const paging = readPaging(request.query);
      const { params } = request;
      const listed = await runs.listRuns(
        viewerUser(request.viewer),
        params.owner,
        params.name,
        paging,
      );
      setPagingHeaders(request, reply, base(request), paging, listed.total);
      return {
        workflow_runs: listed.runs.map((run) => toApiWorkflowRun(run, listed.repo, base(request))),
        total_count: listed.total,
      };
    },
  );

  server.get(
    '/repos/:owner/:name/actions/runs/:run',
    {
      schema: {
        summary: 'Get a workflow run by its number',
        tags,
        params: RunParams,
        response: { 200: ApiActionWorkflowRunSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { params } = request;
      const { repo, run } = await runs.getRun(
        viewerUser(request.viewer),
        params.owner,
        params.name,
        params.run,
      );
      return toApiWorkflowRun(run, repo, base(request));
    },
  );

  server.get(
    '/repos/:owner/:name/actions/runs/:run/jobs',
    {
      schema: {
        summary: 'List the jobs of a workflow run',
        tags,
        params: RunParams,
        response: { 200: ApiActionWorkflowJobsResponseSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { params } = request;
      const { repo, run, jobs } = await runs.listJobs(
        viewerUser(request.viewer),
        params.owner,
        params.name,
        params.run,
      );
      return {
        jobs: jobs.map((job) => toApiWorkflowJob(job, run, repo, base(request))),
        total_count: jobs.length,
      };
    },
  );

  // GitHub's and Gitea's paths for a new attempt: the whole run, its failed jobs, one job (and
  // the jobs that need it). Each answers 201 with the run as it now is; a run still going is 409.
  const rerun = (path: string, params: typeof RunParams | typeof RunJobParams, summary: string) =>
    server.post(
      path,
      {
        schema: {
          summary,
          tags,
          params,
          response: {
            201: ApiActionWorkflowRunSchema,
            ...errorResponses,
            409: errorResponses[404],
          },
        },
      },
      async (request, reply) => {
        const user = requireUser(request);
        const { owner, name, run: number } = request.params;
        const job = 'job' in request.params ? request.params.job : undefined;
        const target: RerunTarget =
          job !== undefined
            ? { kind: 'job', jobId: job }
            : path.endsWith('failed-jobs')
              ? { kind: 'failed' }
              : { kind: 'run' };
        const run = await deps.reruns.rerun(user, owner, name, number, target);
        const { repo } = await runs.getRun(user, owner, name, number);
        return reply.status(201).send(toApiWorkflowRun(run, repo, base(request)));
      },
    );
  rerun('/repos/:owner/:name/actions/runs/:run/rerun', RunParams, 'Re-run a finished workflow run');
  rerun(
    '/repos/:owner/:name/actions/runs/:run/rerun-failed-jobs',
    RunParams,
    'Re-run the failed jobs of a finished workflow run',
  );
  rerun(
    '/repos/:owner/:name/actions/runs/:run/jobs/:job/rerun',
    RunJobParams,
    'Re-run one job of a finished workflow run, with the jobs that need it',
  );

  server.post(
    '/repos/:owner/:name/actions/workflows/:workflow/dispatches',
    {
      schema: {
        summary: 'Start a workflow that has a workflow_dispatch trigger',
        tags,
        params: WorkflowParams,
        body: DispatchBody,
        response: { 204: Type.Null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { params, body } = request;
      await deps.triggers.dispatch(requireUser(request), params.owner, params.name, {
        workflowFile: params.workflow,
        ref: body.ref,
        inputs: Object.fromEntries(
          Object.entries(body.inputs ?? {}).map(([key, value]) => [key, String(value)]),
        ),
      });
      return reply.status(204).send(null);
    },
  );

  server.get(
    '/repos/:owner/:name/actions/jobs/:job/logs',
    {
      schema: {
        summary: "Download a job's log as plain text",
        tags,
        params: JobParams,
        response: { 200: Type.String(), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { params } = request;
      const log = await runs.jobLogStream(
        viewerUser(request.viewer),
        params.owner,
        params.name,
        params.job,
      );
      // Streamed from storage: a log of any size is never held in memory. The schema's string
      // documents the body; a stream is sent as it is, without serialising.
      const plain: FastifyReply = reply;
      return plain
        .type('text/plain; charset=utf-8')
        .header('X-Content-Type-Options', 'nosniff')
        .send(log);
    },
  );
}
