import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { mayWrite } from '../../../domain/repos/repo.policy.ts';
import type { VisibleRepo } from '../../../domain/repos/repo.types.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { type Confirmation, unlessConfirmed } from '../confirmation.ts';
import { formAction } from '../form-action.ts';
import { field } from '../forms.ts';
import { type Html, html } from '../html.ts';
import type { PageContext } from '../layout.ts';
import type { Pages } from '../page.ts';
import { RepoParams } from '../page-params.ts';
import { repoUrl } from '../paths.ts';
import { signedInPoster } from '../require-user.ts';
import { confirmedDelete } from '../views/confirmed-delete.ts';
import { pageOf, pager, withPage } from '../views/paging.ts';
import { refRow } from '../views/ref-row.ts';
import { repoFrame } from '../views/repo-frame.ts';
import { frameOf, openRepo, type RepoPageDeps } from './repo-context.ts';

/** What the tag list and tag forms use. */
export type TagRouteDeps = RepoPageDeps & {
  readonly services: Pick<DomainServices, 'tags'>;
};

const PER_PAGE = 50;

/** What the create form holds when it is shown again. */
type TagFormValues = { readonly tag: string; readonly target: string };

function createTagForm(
  context: PageContext,
  repo: VisibleRepo['repo'],
  branches: readonly string[],
  values: TagFormValues,
): Html {
  return html`<form method="post" action="${repoUrl(repo)}/tags" class="Box p-3 mb-4" aria-labelledby="new-tag">
    <h3 class="h4 mb-2" id="new-tag">Create a tag</h3>
    <input type="hidden" name="_csrf" value="${context.csrf}">
    <div class="d-flex flex-wrap kiln-gap flex-items-end">
      <div class="form-group m-0 min-width-0"><div class="form-group-header"><label for="tag-name">Tag name</label></div>
        <div class="form-group-body"><input class="form-control" id="tag-name" name="tag" required maxlength="255" value="${values.tag}" placeholder="v1.0.0" autocomplete="off" spellcheck="false"></div></div>
      <div class="form-group m-0 min-width-0"><div class="form-group-header"><label for="tag-target">Target (branch or commit)</label></div>
        <div class="form-group-body"><input class="form-control" id="tag-target" name="target" list="tag-branches" required maxlength="255" value="${values.target}" autocomplete="off" spellcheck="false"></div></div>
      <datalist id="tag-branches">${branches.map((branch) => html`<option value="${branch}"></option>`)}</datalist>
      <button class="btn btn-primary" type="submit">Create tag</button>
    </div>
  </form>`;
}

/**
 * The tags of a repository, newest versions first; writers create tags from a branch or commit
 * and delete them behind a confirmation. Both go through the tag service: write access, no tag
 * twice, and a tag that carries a release stays until the release is deleted.
 */
export function registerTagRoutes(parent: FastifyInstance, deps: TagRouteDeps, pages: Pages): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { code, tags, repos } = deps.services;

  const render = async (
    request: FastifyRequest,
    reply: FastifyReply,
    visible: VisibleRepo,
    outcome: { error?: string; status?: number; values?: TagFormValues } = {},
  ) => {
    const { repo } = visible;
    const page = pageOf(request.query);
    const [refs, frame, defaultBranch] = await Promise.all([
      code.refs(visible),
      frameOf(deps, request, visible, 'code'),
      code.defaultBranch(visible),
    ]);
    // Newest versions first: v1.10 after v1.9, as people read version numbers.
    const ordered = refs.tags
      .filter((tag) => tag.commitSha !== undefined)
      .map((tag) => ({ name: tag.name, sha: tag.commitSha as string }))
      .sort((a, b) => b.name.localeCompare(a.name, 'en', { numeric: true }));
    const slice = ordered.slice((page - 1) * PER_PAGE, page * PER_PAGE);
    const tips = await code.tips(visible, slice);
    const writer = mayWrite(visible.access);
    const branches = refs.branches.map((branch) => branch.name);
    const values = outcome.values ?? { tag: '', target: defaultBranch };
    const body = (context: PageContext) => {
      const rows = tips.map((tip) =>
        refRow(
          repo,
          tip,
          'tag',
          null,
          writer
            ? confirmedDelete(context, {
                action: `${repoUrl(repo)}/tags/delete`,
                fields: { tag: tip.name },
                what: `the tag ${tip.name}`,
                label: `Delete tag ${tip.name}`,
              })
            : null,
        ),
      );
      return html`<h2 class="h3 mb-3">Tags</h2>
        ${outcome.error ? html`<div class="flash flash-error mb-3" role="alert">${outcome.error}</div>` : null}
        ${writer && branches.length > 0 ? createTagForm(context, repo, branches, values) : null}
        ${rows.length === 0 ? html`<p class="color-fg-muted">No tags yet.</p>` : html`<ul class="Box kiln-list">${rows}</ul>`}
        ${pager(page, ordered.length > page * PER_PAGE, (n) => withPage(`${repoUrl(repo)}/tags`, n))}`;
    };
    return pages.send(request, reply, {
      status: outcome.status ?? 200,
      title: `Tags · ${repo.owner.handle}/${repo.name}`,
      body: (context) => repoFrame(context, frame, body(context)),
    });
  };

  server.get(
    '/repos/:owner/:name/tags',
    { schema: { params: RepoParams } },
    async (request, reply) => render(request, reply, await openRepo(deps, request)),
  );

  /** Runs a tag change for a writer: flash and back to the list, or the list with the reason. */
  const change = (
    path: string,
    run: (
      user: Parameters<typeof tags.delete>[0],
      params: RepoParams,
      tag: string,
      target: string,
    ) => Promise<string>,
    confirmation?: (tag: string) => Pick<Confirmation, 'title' | 'consequence' | 'button'>,
  ) =>
    server.post(path, { schema: { params: RepoParams } }, async (request, reply) => {
      const user = signedInPoster(request, reply);
      if (!user) return reply;
      const params = request.params;
      const visible = await repos.require(user, params.owner, params.name, 'write');
      const values = {
        tag: field(request.body, 'tag', 300),
        target: field(request.body, 'target', 300),
      };
      const list = `${repoUrl(visible.repo)}/tags`;
      const asked =
        confirmation &&
        unlessConfirmed(pages, request, reply, () => ({
          ...confirmation(values.tag),
          action: `${list}/delete`,
          cancel: list,
          fields: { tag: values.tag },
        }));
      if (asked) return asked;
      return formAction(
        pages,
        request,
        reply,
        async () => ({
          to: list,
          flash: await run(user, params, values.tag, values.target),
        }),
        {
          passOn: ['forbidden'],
          // A missing target is the form's problem, not a missing page (422).
          render: (error, status) => render(request, reply, visible, { error, status, values }),
        },
      );
    });

  change('/repos/:owner/:name/tags', async (user, { owner, name }, tag, target) => {
    await tags.create(user, owner, name, { tagName: tag, target });
    return `Tag ${tag.trim()} created.`;
  });
  change(
    '/repos/:owner/:name/tags/delete',
    async (user, { owner, name }, tag) => {
      await tags.delete(user, owner, name, tag);
      return `Tag ${tag.trim()} deleted.`;
    },
    (tag) => ({
      title: `Delete tag ${tag}?`,
      consequence: `The tag ${tag} is removed from the repository; the commit it names stays.`,
      button: 'Delete tag',
    }),
  );
}
