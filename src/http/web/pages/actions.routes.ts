import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { WorkflowRunStatus } from '../../../domain/ci/ci.types.ts';
import { NotFound } from '../../../domain/errors.ts';
import { mayWrite } from '../../../domain/repos/repo.policy.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { isRecord } from '../../../lib/narrow.ts';
import { Type } from '../../../present/schemas/type.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { formAction } from '../form-action.ts';
import { field, formValue } from '../forms.ts';
import { html } from '../html.ts';
import type { Pages } from '../page.ts';
import { RepoParams, RunParams } from '../page-params.ts';
import { repoUrl } from '../paths.ts';
import { signedInPoster } from '../require-user.ts';
import { dispatchForms, inputField } from '../views/dispatch-form.ts';
import { pageOf } from '../views/paging.ts';
import { pullUrl } from '../views/pull.ts';
import { repoFrame } from '../views/repo-frame.ts';
import { runPage } from '../views/run-page.ts';
import { isUnfinished, RUN_STATUSES } from '../views/run-status.ts';
import { type RunsQuery, runsList, runUrl } from '../views/runs-list.ts';
import { frameOf, type RepoPageDeps } from './repo-context.ts';

/** What the workflow run pages use. */
export type ActionsRouteDeps = RepoPageDeps & {
  readonly services: Pick<
    DomainServices,
    | 'ciRunQueries'
    | 'ciRunCancels'
    | 'ciRunReruns'
    | 'ciTriggers'
    | 'ciRunApprovals'
    | 'ciArtifactQueries'
  >;
};

const PER_PAGE = 20;

const DispatchParams = Type.Object({ ...RepoParams.properties, file: Type.String() });

/** `:run` as a run number; anything else names no run. */
export function runNumberOf(request: { readonly params: Pick<RunParams, 'run'> }): number {
  const { run } = request.params;
  if (!/^\d{1,15}$/.test(run)) throw new NotFound('workflow run not found');
  return Number(run);
}

/** `?workflow=&status=&page=`; unknown statuses and empty values mean "any". */
function runsQueryOf(query: unknown): RunsQuery {
  const values = isRecord(query) ? query : {};
  const workflow = typeof values.workflow === 'string' ? values.workflow.slice(0, 255) : '';
  const status = typeof values.status === 'string' ? values.status.toUpperCase() : '';
  return {
    workflow: workflow === '' ? undefined : workflow,
    status: RUN_STATUSES.find((known) => known === status) as WorkflowRunStatus | undefined,
    page: pageOf(query),
  };
}

/**
 * The Actions tab: a repository's workflow runs, filtered by workflow and status, and the page of
 * one run with its jobs. Anyone who may read the repository may read these (private ones are 404
 * to outsiders); writers may cancel a run that has not finished and re-run one that has. Job
 * pages are in actions-job.routes.ts.
 */
export function registerActionsRoutes(
  parent: FastifyInstance,
  deps: ActionsRouteDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const {
    ciRunQueries: runs,
    ciRunCancels: cancels,
    ciRunReruns: reruns,
    ciTriggers: triggers,
    ciRunApprovals: approvals,
    repos,
  } = deps.services;

  server.get(
    '/repos/:owner/:name/actions',
    { schema: { params: RepoParams } },
    async (request, reply) => {
      const { owner, name } = request.params;
      const viewer = viewerUser(request.viewer);
      const query = runsQueryOf(request.query);
      const visible = await repos.get(viewer, owner, name);
      const filter = {
        ...(query.workflow !== undefined ? { workflowFile: query.workflow } : {}),
        ...(query.status !== undefined ? { status: query.status } : {}),
      };
      const [listed, workflows, frame, dispatchable] = await Promise.all([
        runs.listRuns(
          viewer,
          owner,
          name,
          { limit: PER_PAGE, offset: (query.page - 1) * PER_PAGE },
          filter,
        ),
        runs.listWorkflows(viewer, owner, name),
        frameOf(deps, request, visible, 'actions'),
        triggers.listDispatchable(viewer, owner, name),
      ]);
      const list = runsList({
        repo: visible.repo,
        runs: listed.runs,
        hasMore: query.page * PER_PAGE < listed.total,
        workflows,
        query,
      });
      return pages.send(request, reply, {
        title: `Actions · ${visible.repo.owner.handle}/${visible.repo.name}`,
        body: (context) =>
          repoFrame(
            context,
            frame,
            html`${dispatchForms(context, visible.repo, dispatchable)}${list}`,
          ),
      });
    },
  );

  server.get(
    '/repos/:owner/:name/actions/runs/:run',
    { schema: { params: RunParams } },
    async (request, reply) => {
      const { owner, name } = request.params;
      const viewer = viewerUser(request.viewer);
      const number = runNumberOf(request);
      const visible = await repos.get(viewer, owner, name);
      const [{ run, jobs }, frame] = await Promise.all([
        runs.listJobs(viewer, owner, name, number),
        frameOf(deps, request, visible, 'actions'),
      ]);
      const canCancel = mayWrite(visible.access);
      const { repo } = visible;
      const approvedBy =
        run.approvedBy === null
          ? undefined
          : (await deps.services.users.findById(run.approvedBy))?.handle;
      const annotations = await runs.runAnnotations(run);
      const artifacts = await deps.services.ciArtifactQueries.ofRun(run);
      const view = { repo, run, jobs, canCancel, approvedBy, annotations, artifacts };
      return pages.send(request, reply, {
        title: `${run.title || run.workflowName} #${run.number} · ${repo.owner.handle}/${repo.name}`,
        body: (context) => repoFrame(context, frame, runPage(context, view)),
      });
    },
  );

  server.post(
    '/repos/:owner/:name/actions/runs/:run/cancel',
    { schema: { params: RunParams } },
    async (request, reply) => {
      const user = signedInPoster(request, reply);
      if (!user) return reply;
      const { owner, name } = request.params;
      return formAction(pages, request, reply, async () => {
        const run = await cancels.cancel(user, owner, name, runNumberOf(request));
        const { repo } = await repos.get(user, owner, name);
        const flash = isUnfinished(run.status)
          ? `Run #${run.number} was cancelled.`
          : `Run #${run.number} had already finished.`;
        return { to: runUrl(repo, run.number), flash };
      });
    },
  );

  // A new attempt of a finished run: all its jobs, or (`failed=1`) the failed ones.
  server.post(
    '/repos/:owner/:name/actions/runs/:run/rerun',
    { schema: { params: RunParams } },
    async (request, reply) => {
      const user = signedInPoster(request, reply);
      if (!user) return reply;
      const { owner, name } = request.params;
      const target =
        field(request.body, 'failed') === '1'
          ? ({ kind: 'failed' } as const)
          : ({ kind: 'run' } as const);
      return formAction(pages, request, reply, async () => {
        const run = await reruns.rerun(user, owner, name, runNumberOf(request), target);
        const { repo } = await repos.get(user, owner, name);
        return { to: runUrl(repo, run.number), flash: `Run #${run.number} starts again.` };
      });
    },
  );

  // Approve and run: a writer lets the waiting runs of a pull request from a fork go. The form
  // on the pull request's page sends `back=pull` to return there.
  server.post(
    '/repos/:owner/:name/actions/runs/:run/approve',
    { schema: { params: RunParams } },
    async (request, reply) => {
      const user = signedInPoster(request, reply);
      if (!user) return reply;
      const { owner, name } = request.params;
      const toPull = field(request.body, 'back') === 'pull';
      return formAction(pages, request, reply, async () => {
        const run = await approvals.approve(user, owner, name, runNumberOf(request));
        const { repo } = await repos.get(user, owner, name);
        const pull = /^refs\/pull\/(\d+)\/head$/.exec(run.ref)?.[1];
        const to = toPull && pull ? pullUrl(repo, Number(pull)) : runUrl(repo, run.number);
        return { to, flash: `Run #${run.number} was approved and runs.` };
      });
    },
  );

  // `workflow_dispatch` from the page: the branch and the declared inputs, as the API takes them.
  server.post(
    '/repos/:owner/:name/actions/workflows/:file/dispatch',
    { schema: { params: DispatchParams } },
    async (request, reply) => {
      const user = signedInPoster(request, reply);
      if (!user) return reply;
      const { owner, name, file } = request.params;
      const form = request.body;
      const prefix = inputField('');
      const inputs = Object.fromEntries(
        Object.keys(typeof form === 'object' && form !== null ? form : {}).flatMap((key) => {
          const value = formValue(form, key);
          return key.startsWith(prefix) && typeof value === 'string'
            ? [[key.slice(prefix.length), value]]
            : [];
        }),
      );
      const ref = field(form, 'ref');
      return formAction(pages, request, reply, async () => {
        const run = await triggers.dispatch(user, owner, name, { workflowFile: file, ref, inputs });
        const { repo } = await repos.get(user, owner, name);
        return run
          ? { to: runUrl(repo, run.number), flash: `Run #${run.number} of ${file} started.` }
          : { to: `${repoUrl(repo)}/actions`, flash: `${file} started nothing.` };
      });
    },
  );
}
