import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  mayChangeReviewComment,
  mayCommentOnPull,
  mayResolveReviewThread,
} from '../../../domain/pulls/pull.policy.ts';
import type { PullInContext } from '../../../domain/pulls/pull.service.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { User } from '../../../domain/users/user.types.ts';
import type { Diff } from '../../../git/diff.ts';
import type { Commit } from '../../../git/read-objects.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { type Html, html } from '../html.ts';
import type { PageContext } from '../layout.ts';
import type { Pages } from '../page.ts';
import type { PageRequest, PullParams } from '../page-params.ts';
import { type PullTab, pullHeader, pullUrl } from '../views/pull.ts';
import { repoFrame } from '../views/repo-frame.ts';
import type { ThreadTab, ThreadViewer } from '../views/review-thread.ts';
import { pullNumberOf } from './pull-state.routes.ts';
import { frameOf, type RepoPageDeps } from './repo-context.ts';

/** What the page of one pull request and its forms use. */
export type PullPageRouteDeps = RepoPageDeps & {
  readonly services: Pick<
    DomainServices,
    | 'pulls'
    | 'pullMerges'
    | 'reviewComments'
    | 'ciRunQueries'
    | 'mergeability'
    | 'ciRunApprovals'
    | 'remotePulls'
    | 'mergeGates'
    | 'pullReviews'
    | 'pullTimeline'
  >;
};

/** What each tab of a pull's page starts from and ends with, shared by the tabs' routes. */
export type PullPageFrame = {
  /** The pull the address names, as the viewer may see it. */
  load(request: PageRequest<PullParams>): Promise<PullInContext>;
  /** Who may do what with a thread's comments, for the tab that draws it. */
  threadViewer(
    found: PullInContext,
    viewer: User | undefined,
    context: PageContext,
    tab: ThreadTab,
  ): ThreadViewer;
  /**
   * Sends the page: the repository's frame, the pull's header with its counts, and `content`.
   * What the tab already loaded for its content (`loaded`) is not loaded again for the counts.
   */
  render(
    request: FastifyRequest,
    reply: FastifyReply,
    found: PullInContext,
    tab: PullTab,
    content: (context: PageContext) => Html,
    loaded?: { commits?: Commit[]; diff?: Diff },
  ): Promise<FastifyReply>;
};

/** The frame shared by a pull page's conversation, commits and files tabs. */
export function pullPageFrame(deps: PullPageRouteDeps, pages: Pages): PullPageFrame {
  const { pulls, users } = deps.services;
  return {
    load: (request) => {
      const { owner, name } = request.params;
      return pulls.get(viewerUser(request.viewer), owner, name, pullNumberOf(request));
    },
    threadViewer: ({ base, pull }, viewer, context, tab) => ({
      csrf: context.csrf,
      url: pullUrl(base.repo, pull.number),
      tab,
      mayReply: mayCommentOnPull(viewer, base.access),
      mayResolve: mayResolveReviewThread(viewer, base.access, pull),
      mayChange: (comment) => mayChangeReviewComment(viewer, base.access, comment),
    }),
    render: async (request, reply, found, tab, content, loaded = {}) => {
      const { base, head, pull } = found;
      const [frame, commits, diff, authors, remoteAuthors] = await Promise.all([
        frameOf(deps, request, base, 'pulls'),
        loaded.commits ?? pulls.commits(found),
        loaded.diff ?? pulls.diff(found),
        users.findManyByIds(pull.mergedById ? [pull.authorId, pull.mergedById] : [pull.authorId]),
        deps.services.remotePulls.authorsOf([pull]),
      ]);
      const headLabel =
        head && head.id !== base.repo.id
          ? `${head.owner.handle}:${pull.headBranch}`
          : pull.headBranch;
      // A merged pull's header names who merged it, as the API's `merged_by` does, not its author.
      const named = pull.merged && pull.mergedById ? pull.mergedById : pull.authorId;
      // A pull proposed from another server names its remote author.
      const remote = named === pull.authorId ? remoteAuthors.get(pull.id) : undefined;
      const header = pullHeader(
        base.repo,
        pull,
        authors.get(named),
        headLabel,
        tab,
        { commits: commits.length, files: diff.totalFiles },
        remote,
      );
      return pages.send(request, reply, {
        title: `${pull.title} · Pull request #${pull.number} · ${base.repo.owner.handle}/${base.repo.name}`,
        body: (context) => repoFrame(context, frame, html`${header}${content(context)}`),
      });
    },
  };
}
