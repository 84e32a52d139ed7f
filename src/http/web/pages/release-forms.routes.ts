import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { VisibleRepo } from '../../../domain/repos/repo.types.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { unlessConfirmed } from '../confirmation.ts';
import { formAction } from '../form-action.ts';
import { field } from '../forms.ts';
import type { Pages } from '../page.ts';
import { type PageRequest, RepoParams, RepoRestParams } from '../page-params.ts';
import { encodeSegments, repoUrl } from '../paths.ts';
import { signedInOrRedirect, signedInPoster } from '../require-user.ts';
import { releaseNotes, releaseUrl } from '../views/release.ts';
import { type ReleaseFormValues, releaseForm } from '../views/release-form.ts';
import { repoFrame } from '../views/repo-frame.ts';
import { frameOf, type RepoPageDeps } from './repo-context.ts';

/** What the release forms use. */
export type ReleaseFormRouteDeps = RepoPageDeps & {
  readonly services: Pick<DomainServices, 'releases'>;
};

/** What the form was posted for. */
type FormMode = { readonly kind: 'new' } | { readonly kind: 'edit'; readonly tag: string };

function valuesOf(body: unknown): ReleaseFormValues {
  return {
    tag: field(body, 'tag', 300),
    target: field(body, 'target', 300),
    title: field(body, 'title', 300),
    body: field(body, 'body', 1_048_576),
    prerelease: field(body, 'prerelease', 10) === 'on',
  };
}

function tagOf(request: { readonly params: RepoRestParams }): string {
  return request.params['*'] ?? '';
}

/**
 * Drafting, editing and deleting releases from the web, for people with write access. Every
 * change goes through the release service, under the same rules as the REST API; a refused
 * change shows the form again with the reason and the status of the domain error.
 */
export function registerReleaseFormRoutes(
  parent: FastifyInstance,
  deps: ReleaseFormRouteDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { releases, repos, code } = deps.services;

  /** The repository, when the signed-in person may write to it (NotFound, Forbidden otherwise). */
  const writable = (request: PageRequest<RepoParams>, user: User): Promise<VisibleRepo> => {
    const { owner, name } = request.params;
    return repos.require(user, owner, name, 'write');
  };

  const render = async (
    request: FastifyRequest,
    reply: FastifyReply,
    visible: VisibleRepo,
    mode: FormMode,
    values: ReleaseFormValues,
    outcome: { error?: string; status?: number; preview?: boolean } = {},
  ) => {
    const { repo } = visible;
    const [refs, frame] = await Promise.all([
      code.refs(visible),
      frameOf(deps, request, visible, 'releases'),
    ]);
    const tags = refs.tags.map((tag) => tag.name);
    // Relative links of the notes resolve in the tag once it exists, else in the target branch.
    const base = tags.includes(values.tag) ? values.tag : values.target;
    const preview = outcome.preview
      ? await releaseNotes(pages.renderer, repo, base, values.body)
      : undefined;
    const setup = {
      heading: mode.kind === 'new' ? 'Draft a new release' : `Edit release ${mode.tag}`,
      action:
        mode.kind === 'new'
          ? `${repoUrl(repo)}/releases/new`
          : `${repoUrl(repo)}/releases/edit/${encodeSegments(mode.tag)}`,
      submitLabel: mode.kind === 'new' ? 'Publish release' : 'Update release',
      tags,
      branches: refs.branches.map((branch) => branch.name),
      error: outcome.error,
      preview,
    };
    return pages.send(request, reply, {
      status: outcome.status ?? 200,
      title: `${setup.heading} · ${repo.owner.handle}/${repo.name}`,
      body: (context) => repoFrame(context, frame, releaseForm(context, setup, values)),
    });
  };

  /** Preview, or save and go to the release; a refusal shows the form again. */
  const submit = async (
    request: PageRequest<RepoRestParams>,
    reply: FastifyReply,
    mode: FormMode,
  ) => {
    const user = signedInPoster(request, reply);
    if (!user) return reply;
    const visible = await writable(request, user);
    const { owner, name } = request.params;
    // Editing a release that is not there is a missing page, not a refused form.
    if (mode.kind === 'edit') await releases.get(user, owner, name, { tag: mode.tag });
    const values = valuesOf(request.body);
    if (field(request.body, 'preview', 10) !== '') {
      return render(request, reply, visible, mode, values, { preview: true });
    }
    const input = {
      tagName: values.tag,
      targetCommitish: values.target,
      name: values.title,
      body: values.body,
      prerelease: values.prerelease,
    };
    return formAction(
      pages,
      request,
      reply,
      async () => {
        const saved =
          mode.kind === 'new'
            ? await releases.create(user, owner, name, input)
            : await releases.update(user, owner, name, { tag: mode.tag }, input);
        const { tagName } = saved.release;
        const flash =
          mode.kind === 'new' ? `Release ${tagName} published.` : `Release ${tagName} updated.`;
        return { to: releaseUrl(saved.visible.repo, tagName), flash };
      },
      {
        passOn: ['forbidden'],
        // A missing target or tag is the form's problem here, not a missing page (422).
        render: (error, status) => render(request, reply, visible, mode, values, { error, status }),
      },
    );
  };

  server.get(
    '/repos/:owner/:name/releases/new',
    { schema: { params: RepoParams } },
    async (request, reply) => {
      const user = signedInOrRedirect(request, reply);
      if (!user) return reply;
      const visible = await writable(request, user);
      const target = await code.defaultBranch(visible);
      return render(
        request,
        reply,
        visible,
        { kind: 'new' },
        {
          tag: '',
          target,
          title: '',
          body: '',
          prerelease: false,
        },
      );
    },
  );
  server.post(
    '/repos/:owner/:name/releases/new',
    { schema: { params: RepoParams } },
    (request, reply) => submit(request, reply, { kind: 'new' }),
  );

  server.get(
    '/repos/:owner/:name/releases/edit/*',
    { schema: { params: RepoRestParams } },
    async (request, reply) => {
      const user = signedInOrRedirect(request, reply);
      if (!user) return reply;
      const { owner, name } = request.params;
      await writable(request, user);
      const { visible, release } = await releases.get(user, owner, name, { tag: tagOf(request) });
      return render(
        request,
        reply,
        visible,
        { kind: 'edit', tag: release.tagName },
        {
          tag: release.tagName,
          target: release.targetCommitish,
          title: release.name,
          body: release.body,
          prerelease: release.prerelease,
        },
      );
    },
  );
  server.post(
    '/repos/:owner/:name/releases/edit/*',
    { schema: { params: RepoRestParams } },
    (request, reply) => submit(request, reply, { kind: 'edit', tag: tagOf(request) }),
  );

  server.post(
    '/repos/:owner/:name/releases/delete',
    { schema: { params: RepoParams } },
    async (request, reply) => {
      const user = signedInPoster(request, reply);
      if (!user) return reply;
      const { owner, name } = request.params;
      const tag = field(request.body, 'tag', 300);
      const visible = await writable(request, user);
      const asked = unlessConfirmed(pages, request, reply, () => ({
        title: `Delete release ${tag}?`,
        consequence: `The release and its notes are removed; the tag ${tag} stays.`,
        action: `${repoUrl(visible.repo)}/releases/delete`,
        button: 'Delete release',
        cancel: `${repoUrl(visible.repo)}/releases`,
        fields: { tag },
      }));
      if (asked) return asked;
      return formAction(pages, request, reply, async () => {
        await releases.delete(user, owner, name, { tag });
        const flash = `Release ${tag} deleted; the tag ${tag} stays.`;
        return { to: `${repoUrl(visible.repo)}/releases`, flash };
      });
    },
  );
}
