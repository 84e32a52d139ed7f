import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { MergeGate } from '../../../domain/pulls/merge-gate.service.ts';
import {
  mayChangeReviewComment,
  mayCommentOnPull,
  mayResolveReviewThread,
  pullPermissions,
} from '../../../domain/pulls/pull.policy.ts';
import type { PullInContext } from '../../../domain/pulls/pull.service.ts';
import type { PullReview } from '../../../domain/pulls/pull-review.types.ts';
import type { ReviewThread } from '../../../domain/pulls/review-threads.ts';
import { lineOf, reviewThreads } from '../../../domain/pulls/review-threads.ts';
import { mayAdministerRepo, mayWrite } from '../../../domain/repos/repo.policy.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { Diff, DiffFile } from '../../../git/diff.ts';
import type { Commit } from '../../../git/read-objects.ts';
import { foldId } from '../../../lib/ids.ts';
import { isRecord } from '../../../lib/narrow.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import type { PageContext } from '../layout.ts';
import { METERED } from '../metered.ts';
import type { Pages } from '../page.ts';
import { type PageRequest, PullParams } from '../page-params.ts';
import { srcUrl } from '../paths.ts';
import { diffAnnotations } from '../views/annotations.ts';
import { pullApprovalNotice } from '../views/approval-notice.ts';
import { commitList } from '../views/commit-list.ts';
import {
  DIFF_RENDER_LIMITS,
  diffFileList,
  diffFiles,
  loadDiffHref,
  loadedFiles,
  ONE_FILE_DIFF_LIMITS,
  prepareDiff,
} from '../views/diff.ts';
import { mergeabilityStatus } from '../views/mergeability.ts';
import { type PullTab, pullHeader, pullUrl } from '../views/pull.ts';
import { mergeBlockersView, timelineView } from '../views/pull-timeline.ts';
import { repoFrame } from '../views/repo-frame.ts';
import { requiredChecksBox } from '../views/required-checks.ts';
import { reviewChangesForm } from '../views/review-form.ts';
import { reviewThreadView, type ThreadTab, type ThreadViewer } from '../views/review-thread.ts';
import { PULL_CONFIRMATIONS, pullNumberOf, registerPullStateRoutes } from './pull-state.routes.ts';
import { loadTimeline } from './pull-timeline-parts.ts';
import { frameOf, type RepoPageDeps } from './repo-context.ts';
import { pullMarkdownBase, reviewCommentBoxes } from './review-comment-boxes.ts';

/** What a page that shows no merge button assumes of CI. */
const OPEN_GATE: MergeGate = { enforced: false, checks: [], passed: true, blockers: [] };

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

/** Where a new comment form is open: `?path=…&side=RIGHT&line=12` (links on line numbers). */
function openForm(
  query: unknown,
): { path: string; side: 'LEFT' | 'RIGHT'; line: number } | undefined {
  const { path, side, line } = isRecord(query) ? query : {};
  if (typeof path !== 'string' || typeof line !== 'string' || !/^\d{1,9}$/.test(line))
    return undefined;
  return { path, side: side === 'LEFT' ? 'LEFT' : 'RIGHT', line: Number(line) };
}

/** One pull request: conversation, commits and files tabs, and the forms that act on it. */
export function registerPullPageRoutes(
  parent: FastifyInstance,
  deps: PullPageRouteDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { pulls, reviewComments, users, ciRunQueries } = deps.services;

  const load = async (request: PageRequest<PullParams>) => {
    const { owner, name } = request.params;
    return pulls.get(viewerUser(request.viewer), owner, name, pullNumberOf(request));
  };

  /**
   * The pull, who is looking and the pull's review comments (loaded beside what `alongside`
   * loads): what the conversation and files tabs both start from.
   */
  const loadReviewed = async <T>(
    request: PageRequest<PullParams>,
    alongside: (found: PullInContext) => Promise<T>,
  ) => {
    const found = await load(request);
    const { base, pull } = found;
    const viewer = viewerUser(request.viewer);
    const [comments, loaded] = await Promise.all([
      reviewComments.listOf(found, viewer),
      alongside(found),
    ]);
    // Comment boxes are drawn for the threads a tab shows, not for every comment of the pull.
    const boxesFor = (shown: readonly ReviewThread[]) =>
      reviewCommentBoxes(
        deps,
        pages.renderer,
        found,
        shown.flatMap((thread) => thread.comments),
      );
    const url = pullUrl(base.repo, pull.number);
    const threadViewer = (context: PageContext, tab: ThreadTab): ThreadViewer => ({
      csrf: context.csrf,
      url,
      tab,
      mayReply: mayCommentOnPull(viewer, base.access),
      mayResolve: mayResolveReviewThread(viewer, base.access, pull),
      mayChange: (comment) => mayChangeReviewComment(viewer, base.access, comment),
    });
    return {
      found,
      viewer,
      comments,
      threads: reviewThreads(comments),
      loaded,
      boxesFor,
      url,
      threadViewer,
    };
  };

  const render = async (
    request: FastifyRequest,
    reply: FastifyReply,
    found: PullInContext,
    tab: PullTab,
    content: (context: PageContext) => Html,
    // What the tab already loaded for its content is not loaded again for the header's counts.
    loaded: { commits?: Commit[]; diff?: Diff } = {},
  ) => {
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
  };

  server.get(
    '/repos/:owner/:name/pulls/:number',
    { ...METERED, schema: { params: PullParams } },
    async (request, reply) => {
      const reviewed = await loadReviewed(request, (found) =>
        found.pull.body.trim()
          ? pages.renderer.markdown(found.pull.body, pullMarkdownBase(found))
          : Promise.resolve(html`<p class="color-fg-muted"><em>No description provided.</em></p>`),
      );
      const { found, viewer, threads, boxesFor, url, loaded: bodyHtml, threadViewer } = reviewed;
      const { base, pull } = found;
      const may = pullPermissions(viewer, base.access, pull);
      // What is known now; an unknown answer is checked in the background, never waited for.
      const [mergeable, waiting, gate] = await Promise.all([
        deps.services.mergeability.knownFor(found),
        deps.services.ciRunApprovals.waitingOf(pull.id),
        // Shown above the merge button only: open pulls, to people signed in.
        viewer && pull.state === 'open'
          ? deps.services.mergeGates.gateOf(base.repo, pull.baseBranch, pull.headSha, pull, viewer)
          : OPEN_GATE,
      ]);
      const blockedBy = gate.blockers.flatMap((b) => (b.kind === 'changes_requested' ? b.by : []));
      const all = (request.query as Record<string, unknown> | undefined)?.timeline === 'all';
      const timeline = await loadTimeline(deps, pages.renderer, found, viewer, threads, {
        extraPeople: blockedBy,
        all,
      });
      const parts = await boxesFor(timeline.shownThreads);
      const held = mergeable?.state === 'conflict' || !gate.passed;
      // An admin may merge past what the protection waits for, never past the whitelist.
      const mayForce =
        mayAdministerRepo(base.access) &&
        gate.blockers.length > 0 &&
        gate.blockers.every((blocker) => blocker.kind !== 'merge_whitelist') &&
        mergeable?.state !== 'conflict';
      const dismissForm = (context: PageContext) => (review: PullReview) =>
        mayAdministerRepo(base.access) &&
        pull.state === 'open' &&
        !review.dismissed &&
        (review.state === 'APPROVED' || review.state === 'REQUEST_CHANGES')
          ? html`<form method="post" action="${url}/reviews/${String(foldId(review.id))}/dismiss" class="d-inline"><input type="hidden" name="_csrf" value="${context.csrf}"><input type="hidden" name="message" value="Dismissed"><button class="btn btn-sm" type="submit" data-dismiss-review>Dismiss</button></form>`
          : null;
      const actions = (context: PageContext) => {
        if (!viewer)
          return html`<p class="color-fg-muted"><a href="/login?redirect=${encodeURIComponent(url)}">Sign in</a> to take part.</p>`;
        const form = (action: string, label: string, cls: string, disabled = false) =>
          html`<form method="post" action="${url}/${action}" class="d-inline"${action === 'reopen' ? '' : html` data-confirm="${PULL_CONFIRMATIONS[action === 'merge' ? 'merge' : 'close'].title}"`}><input type="hidden" name="_csrf" value="${context.csrf}"><button class="btn ${cls}" type="submit" ${action === 'merge' ? html`data-merge-button` : null} ${disabled ? html`disabled` : null}>${label}</button></form>`;
        if (pull.merged)
          return html`<div class="Box p-3 color-fg-done">${icon('git-merge')} Merged into <span class="branch-name">${pull.baseBranch}</span>${pull.mergeCommitSha ? html` as <code>${pull.mergeCommitSha.slice(0, 7)}</code>` : null}.</div>`;
        if (pull.state === 'closed')
          return may.toggle
            ? html`<div class="Box p-3">This pull request is closed. ${form('reopen', 'Reopen pull request', 'btn-sm')}</div>`
            : null;
        return html`<div class="Box p-3">${mergeabilityStatus(url, mergeable)}${mergeBlockersView(gate, timeline.who)}${requiredChecksBox(base.repo, gate)}<div class="d-flex flex-items-center flex-wrap kiln-gap">
        <span class="flex-auto">${may.merge ? 'Merging makes a merge commit on the base branch.' : 'Only people who can write to this repository can merge.'}</span>
        ${may.toggle ? form('close', 'Close pull request', 'btn-sm') : null}
        ${may.merge ? form('merge', 'Merge pull request', 'btn-primary', held) : null}
        ${mayForce ? form('force-merge', 'Merge without waiting (administrator)', 'btn-danger btn-sm') : null}
      </div></div>`;
      };
      return render(
        request,
        reply,
        found,
        'conversation',
        (
          context,
        ) => html`<div class="Box mb-3"><div class="Box-body markdown-body">${bodyHtml}</div></div>
      ${timelineView(
        timeline.items,
        timeline.who,
        (thread) =>
          reviewThreadView(thread, parts, threadViewer(context, 'conversation'), { hunk: true }),
        dismissForm(context),
      )}
      ${timeline.hidden > 0 ? html`<p class="f6 color-fg-muted" id="timeline-hidden">${String(timeline.hidden)} items between the first and the latest are not shown. <a href="${url}?timeline=all">Show the whole timeline</a></p>` : null}
      ${timeline.loose.length > 0 ? html`<h3 class="h4 mb-2">Review comments</h3>${timeline.loose.map((thread) => reviewThreadView(thread, parts, threadViewer(context, 'conversation'), { hunk: true }))}` : null}
      ${pullApprovalNotice(context, { repo: base.repo, waiting, canApprove: mayWrite(base.access) })}${actions(context)}`,
      );
    },
  );

  server.get(
    '/repos/:owner/:name/pulls/:number/commits',
    { ...METERED, schema: { params: PullParams } },
    async (request, reply) => {
      const found = await load(request);
      const commits = await pulls.commits(found);
      const checks = await ciRunQueries.commitChecks(
        found.base.repo,
        commits.map((commit) => commit.sha),
      );
      return render(
        request,
        reply,
        found,
        'commits',
        () =>
          commits.length === 0
            ? html`<p class="color-fg-muted">No commits.</p>`
            : commitList(found.base.repo, [...commits].reverse(), checks),
        { commits },
      );
    },
  );

  server.get(
    '/repos/:owner/:name/pulls/:number/files',
    { ...METERED, schema: { params: PullParams } },
    async (request, reply) => {
      const only = loadedFiles(request.query);
      const reviewed = await loadReviewed(request, (found) => pulls.diff(found, only));
      const {
        found,
        viewer,
        comments,
        threads,
        boxesFor,
        url,
        loaded: diff,
        threadViewer,
      } = reviewed;
      const parts = await boxesFor(threads);
      const pendingReview = viewer
        ? (await deps.services.pullReviews.listOf(found, viewer)).find(
            (review) => review.state === 'PENDING',
          )
        : undefined;
      const pending = comments.filter(
        (comment) => pendingReview && comment.reviewId === pendingReview.id,
      ).length;
      const { base, pull } = found;
      const form = openForm(request.query);
      const pathOf = (file: DiffFile) => file.newPath ?? file.oldPath ?? '';
      const link = viewer
        ? (file: DiffFile, side: 'LEFT' | 'RIGHT', line: number) =>
            `${url}/files?${new URLSearchParams({ path: pathOf(file), side, line: String(line) })}#new-comment`
        : undefined;
      // What CI said about lines of the head commit, shown next to those lines.
      const noted = diffAnnotations(await ciRunQueries.commitAnnotations(base.repo, pull.headSha));
      const prepared = await prepareDiff(
        diff,
        only ? ONE_FILE_DIFF_LIMITS : DIFF_RENDER_LIMITS,
        link ? { link } : {},
      );
      return render(
        request,
        reply,
        found,
        'files',
        (context) => {
          const hooks = {
            after: (file: DiffFile, side: 'LEFT' | 'RIGHT', line: number) => {
              const here = threads.filter(
                ({ first }) =>
                  first.path === pathOf(file) && first.side === side && lineOf(first) === line,
              );
              const formHere =
                form && form.path === pathOf(file) && form.side === side && form.line === line;
              const notes = noted(pathOf(file), side, line);
              if (here.length === 0 && !formHere) return notes;
              return html`${notes}<tr class="kiln-comment-row"><td colspan="3">
            ${here.map((thread) => reviewThreadView(thread, parts, threadViewer(context, 'files')))}
            ${
              formHere
                ? html`<form method="post" action="${url}/comments" class="my-2" id="new-comment">
              <input type="hidden" name="_csrf" value="${context.csrf}"><input type="hidden" name="back" value="files">
              <input type="hidden" name="path" value="${form.path}"><input type="hidden" name="side" value="${form.side}"><input type="hidden" name="line" value="${String(form.line)}">
              <label for="comment-body" class="d-block mb-1 f6">Comment on ${form.path} line ${form.line}</label>
              <textarea class="form-control width-full" id="comment-body" name="body" rows="3" required></textarea>
              <button class="btn btn-sm mt-2" type="submit">Add comment</button>
              <button class="btn btn-primary btn-sm mt-2" type="submit" name="review" value="start" data-start-review>Start a review</button>
            </form>`
                : null
            }
          </td></tr>`;
            },
          };
          const view = (file: DiffFile) =>
            file.newPath && file.status !== 'deleted'
              ? srcUrl(base.repo, pull.headSha, file.newPath)
              : undefined;
          return html`${viewer ? html`<p class="f6 color-fg-muted mb-2">Select a line number to comment on it.</p>${reviewChangesForm({ url, csrf: context.csrf, pending, ownPull: viewer.id === pull.authorId })}` : null}${diffFileList(diff)}${diffFiles(
            prepared,
            {
              view,
              raw: `${url}.diff`,
              ...(only ? {} : { load: (file: DiffFile) => loadDiffHref(`${url}/files`, file) }),
            },
            hooks.after,
          )}`;
        },
        { diff },
      );
    },
  );

  registerPullStateRoutes(parent, deps, pages);
}
