import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { formatHead } from '../../../domain/pulls/compare-spec.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { formAction } from '../form-action.ts';
import { field } from '../forms.ts';
import { METERED } from '../metered.ts';
import type { Pages } from '../page.ts';
import { type PageRequest, RepoParams, RepoRestParams } from '../page-params.ts';
import { compareUrl } from '../paths.ts';
import { signedInPoster } from '../require-user.ts';
import {
  comparePage,
  type NewPullValues,
  postedPullText,
  suggestedTitle,
} from '../views/compare.ts';
import {
  DIFF_RENDER_LIMITS,
  loadedFiles,
  ONE_FILE_DIFF_LIMITS,
  prepareDiff,
} from '../views/diff.ts';
import { pullUrl } from '../views/pull.ts';
import { repoFrame } from '../views/repo-frame.ts';
import { frameOf, type RepoPageDeps } from './repo-context.ts';

/** What the compare page and its new-pull form use. */
export type CompareRouteDeps = RepoPageDeps & {
  readonly services: Pick<DomainServices, 'compares' | 'pulls'>;
};

/** `owner/name` as the head repository picker sends it, split; anything else is no repository. */
function headRepoOf(value: string): { owner: string; name: string } | undefined {
  const [owner, name, ...rest] = value.split('/');
  return owner && name && rest.length === 0 ? { owner, name } : undefined;
}

/**
 * The compare page, GitHub's and Gitea's `/compare/{base}...{head}`: pickers, the commits and
 * diff of a head against a base, and the form that opens a pull of them. Rendering a diff costs
 * what a pull's files tab costs, so it is metered like that tab.
 */
export function registerCompareRoutes(
  parent: FastifyInstance,
  deps: CompareRouteDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { compares, pulls } = deps.services;

  const render = async (
    request: PageRequest<RepoParams>,
    reply: FastifyReply,
    spec: string,
    form: { values?: NewPullValues; error?: string; status?: number } = {},
  ) => {
    const { owner, name } = request.params;
    const viewer = viewerUser(request.viewer);
    const only = loadedFiles(request.query);
    const comparison = await compares.compare(viewer, owner, name, spec, only);
    const { outcome } = comparison;
    const prepared =
      outcome.kind === 'compared'
        ? await prepareDiff(outcome.diff, only ? ONE_FILE_DIFF_LIMITS : DIFF_RENDER_LIMITS)
        : undefined;
    const frame = await frameOf(deps, request, comparison.base, 'pulls');
    const values = form.values ?? { title: suggestedTitle(comparison), body: '' };
    const { base } = comparison;
    return pages.send(request, reply, {
      ...(form.status ? { status: form.status } : {}),
      title: `Comparing ${comparison.baseBranch}...${comparison.headRef} · ${base.repo.owner.handle}/${base.repo.name}`,
      body: (context) =>
        repoFrame(
          context,
          frame,
          comparePage(context, comparison, {
            signedIn: viewer !== undefined,
            values,
            ...(only ? { onlyFiles: true } : {}),
            ...(prepared ? { prepared } : {}),
            ...(form.error ? { error: form.error } : {}),
          }),
        ),
    });
  };

  // The pickers' GET form lands here and is sent on to the page's own address; without a
  // choice this compares the default branch with itself, which offers the pickers.
  server.get(
    '/repos/:owner/:name/compare',
    { ...METERED, schema: { params: RepoParams } },
    async (request, reply) => {
      const base = field(request.query, 'base', 255);
      const head = field(request.query, 'head', 255);
      if (!base && !head) return render(request, reply, '');
      const { owner, name } = request.params;
      const visible = await deps.services.repos.get(viewerUser(request.viewer), owner, name);
      const headRepo = headRepoOf(field(request.query, 'head_repo', 300));
      const headRef = headRepo
        ? formatHead(
            { ownerHandle: visible.repo.owner.handle, name: visible.repo.name },
            { ownerHandle: headRepo.owner, name: headRepo.name, branch: head },
          )
        : head;
      return reply.redirect(compareUrl(visible.repo, base, headRef), 302);
    },
  );

  server.get(
    '/repos/:owner/:name/compare/*',
    { ...METERED, schema: { params: RepoRestParams } },
    async (request, reply) => render(request, reply, request.params['*'] ?? ''),
  );

  server.post(
    '/repos/:owner/:name/compare/*',
    { schema: { params: RepoRestParams } },
    async (request, reply) => {
      const user = signedInPoster(request, reply);
      if (!user) return reply;
      const { owner, name } = request.params;
      const spec = request.params['*'] ?? '';
      const values = postedPullText(request.body);
      return formAction(
        pages,
        request,
        reply,
        async () => {
          // The comparison names both branches as the page showed them; the pull service
          // checks them again, as it does for the REST API.
          const { baseBranch, headRef } = await compares.compare(user, owner, name, spec);
          const created = await pulls.create(user, owner, name, {
            ...values,
            base: baseBranch,
            head: headRef,
          });
          return { to: pullUrl(created.base.repo, created.pull.number) };
        },
        {
          passOn: ['not_found'],
          render: (error, status) => render(request, reply, spec, { values, error, status }),
        },
      );
    },
  );
}
