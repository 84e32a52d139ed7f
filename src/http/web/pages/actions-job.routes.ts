import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { NotFound } from '../../../domain/errors.ts';
import { mayWrite } from '../../../domain/repos/repo.policy.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { field } from '../forms.ts';
import { html } from '../html.ts';
import { icon } from '../icons.ts';
import { METERED } from '../metered.ts';
import type { Pages } from '../page.ts';
import { JobParams } from '../page-params.ts';
import { annotationBox } from '../views/annotations.ts';
import { jobLog, LOG_PAGE_LIMITS } from '../views/job-log.ts';
import { repoFrame } from '../views/repo-frame.ts';
import { jobUrl, refreshWhile, runHeader } from '../views/run-page.ts';
import { duration, isUnfinished, statusIcon, statusLabel } from '../views/run-status.ts';
import { runNumberOf } from './actions.routes.ts';
import { frameOf, type RepoPageDeps } from './repo-context.ts';

/** What the job pages of workflow runs use. */
export type ActionsJobRouteDeps = RepoPageDeps & {
  readonly services: Pick<DomainServices, 'ciRunQueries'>;
};

/** A row number from the query (`?from=`, `?before=`), or undefined when absent or not one. */
function rowOf(query: unknown, name: string): number | undefined {
  const value = field(query, name, 20);
  return /^\d{1,15}$/.test(value) ? Number(value) : undefined;
}

/** The job a page is about: it must belong to the run of the URL, else there is no such page. */
async function jobOf(
  deps: ActionsJobRouteDeps,
  request: Pick<FastifyRequest, 'viewer'> & { readonly params: JobParams },
) {
  const { owner, name, job } = request.params;
  if (!/^\d{1,15}$/.test(job)) throw new NotFound('job not found');
  const found = await deps.services.ciRunQueries.getJob(
    viewerUser(request.viewer),
    owner,
    name,
    Number(job),
  );
  if (found.run.number !== runNumberOf(request)) throw new NotFound('job not found');
  return found;
}

/**
 * The page of one job: its log split by step, coloured and line-numbered, reloading itself while
 * the job runs; and the same log as plain text for downloading. Readable by whoever may read the
 * repository, through the same checks as the run page.
 */
export function registerActionsJobRoutes(
  parent: FastifyInstance,
  deps: ActionsJobRouteDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { ciRunQueries: runs, repos } = deps.services;
  const base = '/repos/:owner/:name/actions/runs/:run/jobs/:job';

  const params = { schema: { params: JobParams } };

  // A page of a log reads and builds up to a megabyte and reloads itself while the job runs:
  // metered like the other pages whose cost grows with what users store.
  server.get(base, { ...METERED, ...params }, async (request, reply) => {
    const { owner, name } = request.params;
    const viewer = viewerUser(request.viewer);
    const { run, job } = await jobOf(deps, request);
    const visible = await repos.get(viewer, owner, name);
    const from = rowOf(request.query, 'from');
    const before = from === undefined ? rowOf(request.query, 'before') : undefined;
    const at = from !== undefined ? { from } : before !== undefined ? { before } : {};
    const [window, frame, annotations] = await Promise.all([
      runs.logWindowOf(job, at, {
        maxRows: LOG_PAGE_LIMITS.rows,
        maxBytes: LOG_PAGE_LIMITS.readBytes,
      }),
      frameOf(deps, request, visible, 'actions'),
      runs.jobAnnotations(job),
    ]);
    const { repo } = visible;
    const page = jobUrl(repo, run, job.id);
    const rawUrl = `${page}/logs`;
    const log = await jobLog(
      job,
      window,
      { page, raw: rawUrl },
      { newestFirst: from === undefined },
    );
    const canCancel = mayWrite(visible.access);
    const content = (
      context: Parameters<typeof runHeader>[0],
    ) => html`${refreshWhile(isUnfinished(job.status))}
      ${runHeader(context, { repo, run, canCancel })}
      <div class="d-flex flex-items-center kiln-gap mb-3">
        <h3 class="h4 flex-auto kiln-break">${statusIcon(job.status)} ${job.name}
          <span class="f6 color-fg-muted text-normal">${statusLabel(job.status)} · ${icon('clock')} ${duration(job.startedAt, job.stoppedAt)}</span></h3>
        <a class="btn btn-sm" href="${rawUrl}">${icon('file')} Raw log</a>
      </div>
      ${annotationBox(annotations)}
      ${log}`;
    return pages.send(request, reply, {
      title: `${job.name} · ${run.workflowName} #${run.number} · ${repo.owner.handle}/${repo.name}`,
      body: (context) => repoFrame(context, frame, content(context)),
    });
  });

  // The whole log, streamed from storage as it is stored: never held in memory, so its size
  // costs the socket's time, not the request thread's.
  server.get(`${base}/logs`, params, async (request, reply) => {
    const { owner, name } = request.params;
    const { job } = await jobOf(deps, request);
    const log = await runs.jobLogStream(viewerUser(request.viewer), owner, name, job.id);
    return reply
      .header('Content-Disposition', `inline; filename="job-${job.id}.log"`)
      .header('X-Content-Type-Options', 'nosniff')
      .type('text/plain; charset=utf-8')
      .send(log);
  });
}
