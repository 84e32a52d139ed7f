import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { lineOf, reviewThreads } from '../../../domain/pulls/review-threads.ts';
import type { DiffFile } from '../../../git/diff.ts';
import { isRecord } from '../../../lib/narrow.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { html } from '../html.ts';
import { METERED } from '../metered.ts';
import type { Pages } from '../page.ts';
import { PullParams } from '../page-params.ts';
import { srcUrl } from '../paths.ts';
import { diffAnnotations } from '../views/annotations.ts';
import {
  DIFF_RENDER_LIMITS,
  diffFileList,
  diffFiles,
  loadDiffHref,
  loadedFiles,
  ONE_FILE_DIFF_LIMITS,
  prepareDiff,
} from '../views/diff.ts';
import { pullUrl } from '../views/pull.ts';
import { reviewChangesForm } from '../views/review-form.ts';
import { reviewThreadView } from '../views/review-thread.ts';
import type { PullPageFrame, PullPageRouteDeps } from './pull-page-frame.ts';
import { reviewCommentBoxes } from './review-comment-boxes.ts';

/** Where a new comment form is open: `?path=…&side=RIGHT&line=12` (links on line numbers). */
function openForm(
  query: unknown,
): { path: string; side: 'LEFT' | 'RIGHT'; line: number } | undefined {
  const { path, side, line } = isRecord(query) ? query : {};
  if (typeof path !== 'string' || typeof line !== 'string' || !/^\d{1,9}$/.test(line))
    return undefined;
  return { path, side: side === 'LEFT' ? 'LEFT' : 'RIGHT', line: Number(line) };
}

/**
 * A pull's files tab: its diff with every thread the viewer may see beside its line, the form
 * for a new line comment, and the "Review changes" form with the viewer's pending comments.
 */
export function registerPullFilesRoute(
  parent: FastifyInstance,
  deps: PullPageRouteDeps,
  pages: Pages,
  frame: PullPageFrame,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { pulls, reviewComments, ciRunQueries } = deps.services;
  server.get(
    '/repos/:owner/:name/pulls/:number/files',
    { ...METERED, schema: { params: PullParams } },
    async (request, reply) => {
      const only = loadedFiles(request.query);
      const found = await frame.load(request);
      const viewer = viewerUser(request.viewer);
      const [comments, diff] = await Promise.all([
        reviewComments.listOf(found, viewer),
        pulls.diff(found, only),
      ]);
      const threads = reviewThreads(comments);
      const parts = await reviewCommentBoxes(deps, pages.renderer, found, comments);
      const pendingReview = viewer
        ? (await deps.services.pullReviews.listOf(found, viewer)).find(
            (review) => review.state === 'PENDING',
          )
        : undefined;
      const pending = comments.filter(
        (comment) => pendingReview && comment.reviewId === pendingReview.id,
      ).length;
      const { base, pull } = found;
      const url = pullUrl(base.repo, pull.number);
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
      return frame.render(
        request,
        reply,
        found,
        'files',
        (context) => {
          const threadViewer = frame.threadViewer(found, viewer, context, 'files');
          const after = (file: DiffFile, side: 'LEFT' | 'RIGHT', line: number) => {
            const here = threads.filter(
              ({ first }) =>
                first.path === pathOf(file) && first.side === side && lineOf(first) === line,
            );
            const formHere =
              form && form.path === pathOf(file) && form.side === side && form.line === line;
            const notes = noted(pathOf(file), side, line);
            if (here.length === 0 && !formHere) return notes;
            return html`${notes}<tr class="kiln-comment-row"><td colspan="3">
            ${here.map((thread) => reviewThreadView(thread, parts, threadViewer))}
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
            after,
          )}`;
        },
        { diff },
      );
    },
  );
}
