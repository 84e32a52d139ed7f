import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { DomainServices } from '../../../domain/services.ts';
import { isRecord } from '../../../lib/narrow.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { formAction } from '../form-action.ts';
import { field, formValue } from '../forms.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import type { PageContext } from '../layout.ts';
import { METERED } from '../metered.ts';
import type { Pages } from '../page.ts';
import { type PageRequest, RepoParams } from '../page-params.ts';
import { repoUrl } from '../paths.ts';
import { signedInOrRedirect, signedInPoster } from '../require-user.ts';
import { postedPullText } from '../views/compare.ts';
import { pageOf, pager, withPage } from '../views/paging.ts';
import { pullRow, pullUrl } from '../views/pull.ts';
import { repoFrame } from '../views/repo-frame.ts';
import { frameOf, openRepo, type RepoPageDeps } from './repo-context.ts';

/** What the pull list and the new-pull form use. */
export type PullListRouteDeps = RepoPageDeps & {
  readonly services: Pick<DomainServices, 'pulls' | 'remotePulls'>;
};

const PER_PAGE = 25;

function stateFilter(query: unknown): 'open' | 'closed' {
  return isRecord(query) && query.state === 'closed' ? 'closed' : 'open';
}

function newPullForm(
  context: PageContext,
  action: string,
  branches: readonly string[],
  values: { base: string; head: string; title: string; body: string },
  error?: string,
): Html {
  const options = (selected: string) =>
    branches.map(
      (branch) =>
        html`<option value="${branch}" ${branch === selected ? html`selected` : null}>${branch}</option>`,
    );
  return html`<h2 class="h3 mb-3">Open a pull request</h2>
    ${error ? html`<div class="flash flash-error mb-3" role="alert">${error}</div>` : null}
    <form method="post" action="${action}" class="Box p-3">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <div class="d-flex flex-wrap kiln-gap flex-items-end mb-3">
        <div class="form-group m-0"><div class="form-group-header"><label for="pull-base">Base</label></div>
          <div class="form-group-body"><select class="form-select" id="pull-base" name="base">${options(values.base)}</select></div></div>
        <span class="color-fg-muted mb-2">${icon('arrow-left')}</span>
        <div class="form-group m-0"><div class="form-group-header"><label for="pull-head">Compare</label></div>
          <div class="form-group-body"><input class="form-control" id="pull-head" name="head" list="pull-branches" required value="${values.head}" placeholder="branch or owner:branch"></div></div>
        <datalist id="pull-branches">${branches.map((branch) => html`<option value="${branch}"></option>`)}</datalist>
      </div>
      <div class="form-group"><div class="form-group-header"><label for="pull-title">Title</label></div>
        <div class="form-group-body"><input class="form-control width-full" id="pull-title" name="title" required maxlength="255" value="${values.title}"></div></div>
      <div class="form-group"><div class="form-group-header"><label for="pull-body">Description</label></div>
        <div class="form-group-body"><textarea class="form-control width-full" id="pull-body" name="body" rows="8">${values.body}</textarea></div></div>
      <button class="btn btn-primary" type="submit">Create pull request</button>
    </form>`;
}

/** The pull request list of a repository and the form that opens a new one. */
export function registerPullListRoutes(
  parent: FastifyInstance,
  deps: PullListRouteDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { pulls, code, users } = deps.services;

  server.get(
    '/repos/:owner/:name/pulls',
    { ...METERED, schema: { params: RepoParams } },
    async (request, reply) => {
      const visible = await openRepo(deps, request);
      const { repo } = visible;
      const viewer = viewerUser(request.viewer);
      const state = stateFilter(request.query);
      const page = pageOf(request.query);
      const paging = { limit: PER_PAGE, offset: (page - 1) * PER_PAGE };
      const [list, open, closed, frame] = await Promise.all([
        pulls.list(viewer, repo.owner.handle, repo.name, { state, sort: 'newest' }, paging),
        pulls.list(
          viewer,
          repo.owner.handle,
          repo.name,
          { state: 'open', sort: 'newest' },
          { limit: 1, offset: 0 },
        ),
        pulls.list(
          viewer,
          repo.owner.handle,
          repo.name,
          { state: 'closed', sort: 'newest' },
          { limit: 1, offset: 0 },
        ),
        frameOf(deps, request, visible, 'pulls'),
      ]);
      const pullsShown = list.items.map(({ pull }) => pull);
      const [authors, remoteAuthors] = await Promise.all([
        users.findManyByIds(pullsShown.map((pull) => pull.authorId)),
        deps.services.remotePulls.authorsOf(pullsShown),
      ]);
      const base = `${repoUrl(repo)}/pulls`;
      const stateLink = (name: 'open' | 'closed', count: number, glyph: string) =>
        html`<a class="btn-link ${state === name ? 'text-bold color-fg-default' : 'color-fg-muted'}" href="${base}?state=${name}" ${state === name ? html`aria-current="page"` : null}>${icon(glyph)} ${count} ${name === 'open' ? 'Open' : 'Closed'}</a>`;
      const body = html`<div class="d-flex flex-items-center flex-wrap kiln-gap mb-3">
        <div class="flex-auto d-flex kiln-gap">${stateLink('open', open.total, 'git-pull-request')}${stateLink('closed', closed.total, 'check')}</div>
        ${viewer ? html`<a class="btn btn-primary" href="${base}/new">New pull request</a>` : null}
      </div>
      ${
        list.items.length === 0
          ? html`<div class="blankslate Box"><h3 class="blankslate-heading">No ${state} pull requests</h3></div>`
          : html`<ul class="Box">${list.items.map(({ pull }) => pullRow(repo, pull, authors.get(pull.authorId), remoteAuthors.get(pull.id)))}</ul>`
      }
      ${pager(page, page * PER_PAGE < list.total, (n) => withPage(`${base}?state=${state}`, n))}`;
      return pages.send(request, reply, {
        title: `Pull requests · ${repo.owner.handle}/${repo.name}`,
        body: (context) => repoFrame(context, frame, body),
      });
    },
  );

  const renderNew = async (
    request: PageRequest<RepoParams>,
    reply: FastifyReply,
    values: { base: string; head: string; title: string; body: string },
    error?: string,
  ) => {
    const visible = await openRepo(deps, request);
    const [refs, frame] = await Promise.all([
      code.refs(visible),
      frameOf(deps, request, visible, 'pulls'),
    ]);
    const branches = refs.branches.map((branch) => branch.name);
    const action = `${repoUrl(visible.repo)}/pulls/new`;
    return pages.send(request, reply, {
      ...(error ? { status: 422 } : {}),
      title: `New pull request · ${visible.repo.owner.handle}/${visible.repo.name}`,
      body: (context) =>
        repoFrame(context, frame, newPullForm(context, action, branches, values, error)),
    });
  };

  server.get(
    '/repos/:owner/:name/pulls/new',
    { schema: { params: RepoParams } },
    async (request, reply) => {
      if (!signedInOrRedirect(request, reply)) return reply;
      const visible = await openRepo(deps, request);
      const wantedBase = formValue(request.query, 'base');
      const wantedHead = formValue(request.query, 'head');
      const base = typeof wantedBase === 'string' ? wantedBase : await code.defaultBranch(visible);
      const head = typeof wantedHead === 'string' ? wantedHead : '';
      return renderNew(request, reply, { base, head, title: head, body: '' });
    },
  );

  server.post(
    '/repos/:owner/:name/pulls/new',
    { schema: { params: RepoParams } },
    async (request, reply) => {
      const user = signedInPoster(request, reply);
      if (!user) return reply;
      const { owner, name } = request.params;
      const values = {
        base: field(request.body, 'base', 255),
        head: field(request.body, 'head', 512),
        ...postedPullText(request.body),
      };
      return formAction(
        pages,
        request,
        reply,
        async () => {
          const created = await pulls.create(user, owner, name, values);
          return { to: pullUrl(created.base.repo, created.pull.number) };
        },
        // The form answers 422 for whatever it refuses (renderNew sets it).
        { passOn: ['not_found'], render: (error) => renderNew(request, reply, values, error) },
      );
    },
  );
}
