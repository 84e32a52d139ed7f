import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { DomainServices } from '../../../domain/services.ts';
import type { Account, User } from '../../../domain/users/user.types.ts';
import { formAction } from '../form-action.ts';
import { field, formValue } from '../forms.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import type { PageContext } from '../layout.ts';
import { creatableOwners } from '../owners.ts';
import type { Pages } from '../page.ts';
import { RepoParams } from '../page-params.ts';
import { repoUrl } from '../paths.ts';
import { signedInOrRedirect, signedInPoster } from '../require-user.ts';

/** What repository creation and forking use. */
export type NewRepoRouteDeps = {
  readonly services: Pick<DomainServices, 'repos' | 'orgs' | 'users' | 'teams'>;
};

type NewRepoValues = {
  owner: string;
  name: string;
  description: string;
  visibility: 'public' | 'private';
  autoInit: boolean;
  defaultBranch: string;
};

function newRepoForm(
  context: PageContext,
  owners: readonly Account[],
  values: NewRepoValues,
  error?: string,
): Html {
  const options = owners.map(
    (owner) =>
      html`<option value="${owner.handle}" ${owner.handle === values.owner ? html`selected` : null}>${owner.handle}</option>`,
  );
  const radio = (value: 'public' | 'private', label: string, hint: string, glyph: string) =>
    html`<div class="form-checkbox">
      <label><input type="radio" name="visibility" value="${value}" ${values.visibility === value ? html`checked` : null} aria-describedby="hint-${value}"> ${icon(glyph)} ${label}</label>
      <p class="note" id="hint-${value}">${hint}</p>
    </div>`;
  return html`<div class="kiln-medium">
    <h1 class="h2 mb-1">Create a new repository</h1>
    <p class="color-fg-muted mb-3">A repository holds a project's files and their history. Already have one elsewhere? Create it empty and push.</p>
    ${error ? html`<div class="flash flash-error mb-3" role="alert">${error}</div>` : null}
    <form method="post" action="/new" class="Box p-3">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <div class="d-flex flex-wrap flex-items-end kiln-gap">
        <div class="form-group my-0">
          <div class="form-group-header"><label for="owner">Owner</label></div>
          <div class="form-group-body"><select class="form-select" id="owner" name="owner">${options}</select></div>
        </div>
        <span class="f3 color-fg-muted pb-1" aria-hidden="true">/</span>
        <div class="form-group my-0 flex-auto">
          <div class="form-group-header"><label for="repo-name">Repository name</label></div>
          <div class="form-group-body"><input class="form-control width-full" id="repo-name" name="name" required maxlength="100" pattern="[A-Za-z0-9._\\-]+" value="${values.name}" aria-describedby="name-hint"></div>
        </div>
      </div>
      <p class="note" id="name-hint">Letters, digits, ".", "_" and "-".</p>
      <div class="form-group">
        <div class="form-group-header"><label for="description">Description <span class="color-fg-muted text-normal">(optional)</span></label></div>
        <div class="form-group-body"><input class="form-control width-full" id="description" name="description" maxlength="2048" value="${values.description}"></div>
      </div>
      <fieldset class="border-top pt-3 mt-3">
        <legend class="text-bold mb-2">Visibility</legend>
        ${radio('public', 'Public', 'Anyone can see this repository. You choose who can push.', 'repo')}
        ${radio('private', 'Private', 'Only you, collaborators and organisation members can see it.', 'lock')}
      </fieldset>
      <fieldset class="border-top pt-3 mt-3">
        <legend class="text-bold mb-2">Initialise</legend>
        <div class="form-checkbox">
          <label><input type="checkbox" name="auto_init" value="on" ${values.autoInit ? html`checked` : null} aria-describedby="init-hint"> Add a README file</label>
          <p class="note" id="init-hint">Makes a first commit so the repository can be cloned right away.</p>
        </div>
        <div class="form-group">
          <div class="form-group-header"><label for="default-branch">Default branch</label></div>
          <div class="form-group-body"><input class="form-control" id="default-branch" name="default_branch" maxlength="255" value="${values.defaultBranch}"></div>
        </div>
      </fieldset>
      <div class="border-top pt-3 mt-3"><button class="btn btn-primary" type="submit">Create repository</button></div>
    </form>
  </div>`;
}

function valuesFrom(body: unknown, user: User): NewRepoValues {
  return {
    owner: field(body, 'owner', 100).trim() || user.handle,
    name: field(body, 'name', 200).trim(),
    description: field(body, 'description', 4096),
    visibility: field(body, 'visibility') === 'private' ? 'private' : 'public',
    autoInit: field(body, 'auto_init') === 'on',
    defaultBranch: field(body, 'default_branch', 300).trim() || 'main',
  };
}

/** The new-repository form at `/new` and the fork action of a repository page. */
export function registerNewRepoRoutes(
  parent: FastifyInstance,
  deps: NewRepoRouteDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { repos } = deps.services;

  server.get('/new', async (request, reply) => {
    const user = signedInOrRedirect(request, reply);
    if (!user) return reply;
    const owners = await creatableOwners(deps.services, user);
    const owner = formValue(request.query, 'owner');
    const wanted = typeof owner === 'string' ? owner : user.handle;
    const values: NewRepoValues = {
      owner: owners.some((owner) => owner.handle === wanted) ? wanted : user.handle,
      name: '',
      description: '',
      visibility: 'public',
      autoInit: false,
      defaultBranch: 'main',
    };
    return pages.send(request, reply, {
      title: 'New repository',
      body: (context) => newRepoForm(context, owners, values),
    });
  });

  server.post('/new', async (request, reply) => {
    const user = signedInPoster(request, reply);
    if (!user) return reply;
    const values = valuesFrom(request.body, user);
    return formAction(
      pages,
      request,
      reply,
      async () => {
        const { repo } = await repos.create(user, {
          orgName:
            values.owner.toLowerCase() === user.handle.toLowerCase() ? undefined : values.owner,
          name: values.name,
          description: values.description,
          private: values.visibility === 'private',
          autoInit: values.autoInit,
          defaultBranch: values.defaultBranch,
        });
        return { to: repoUrl(repo) };
      },
      {
        render: async (message, _status, error) => {
          const owners = await creatableOwners(deps.services, user);
          return pages.send(request, reply, {
            // A taken name is a conflict; every other refusal (an organisation the person may
            // not create in among them) is the form's input.
            status: error.code === 'conflict' ? 409 : 422,
            title: 'New repository',
            body: (context) => newRepoForm(context, owners, values, message),
          });
        },
      },
    );
  });

  server.post(
    '/repos/:owner/:name/fork',
    { schema: { params: RepoParams } },
    async (request, reply) => {
      const user = signedInPoster(request, reply);
      if (!user) return reply;
      const { owner, name } = request.params;
      const target = field(request.body, 'owner', 100).trim();
      const orgName =
        target && target.toLowerCase() !== user.handle.toLowerCase() ? target : undefined;
      return formAction(
        pages,
        request,
        reply,
        async () => {
          const { repo } = await repos.fork(user, owner, name, orgName ? { orgName } : {});
          return { to: repoUrl(repo), flash: `Forked ${owner}/${name}.` };
        },
        {
          passOn: ['not_found'],
          back: async () => repoUrl((await repos.get(user, owner, name)).repo),
        },
      );
    },
  );
}
