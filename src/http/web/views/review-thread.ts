import type { ReviewComment } from '../../../domain/pulls/review-comment.types.ts';
import type { ReviewThread } from '../../../domain/pulls/review-threads.ts';
import { foldId } from '../../../lib/ids.ts';
import { type Html, html } from '../html.ts';
import { relativeTime } from './time.ts';

/** Which tab a thread is drawn on; its forms come back there. */
export type ThreadTab = 'files' | 'conversation';

/** What the viewer may do with the threads of a pull, and where its forms post. */
export type ThreadViewer = {
  readonly csrf: string;
  /** The pull's page address; the forms post under `${url}/comments`. */
  readonly url: string;
  readonly tab: ThreadTab;
  readonly mayReply: boolean;
  readonly mayResolve: boolean;
  readonly mayChange: (comment: ReviewComment) => boolean;
};

/** What draws one comment (see `reviewCommentBoxes`) and names people. */
export type ThreadParts = {
  readonly box: (comment: ReviewComment, options?: { hunk?: boolean; actions?: Html }) => Html;
  readonly handleOf: (userId: string) => string | undefined;
};

function hidden(viewer: ThreadViewer): Html {
  return html`<input type="hidden" name="_csrf" value="${viewer.csrf}"><input type="hidden" name="back" value="${viewer.tab}">`;
}

/** Edit (a disclosure holding the form) and delete, for someone who may change the comment. */
function commentActions(comment: ReviewComment, viewer: ThreadViewer): Html | undefined {
  if (!viewer.mayChange(comment)) return undefined;
  const id = foldId(comment.id);
  const action = `${viewer.url}/comments/${id}`;
  return html`<details class="details-reset kiln-comment-edit">
      <summary class="btn-link f6" aria-label="Edit comment ${String(id)}">Edit</summary>
      <form method="post" action="${action}/edit" class="Box p-2 mt-1">
        ${hidden(viewer)}
        <textarea class="form-control width-full" name="body" rows="3" required aria-label="Comment text">${comment.body}</textarea>
        <button class="btn btn-sm btn-primary mt-1" type="submit">Save</button>
      </form>
    </details>
    <form method="post" action="${action}/delete" class="d-inline" data-confirm="Delete this comment? This cannot be undone.">
      ${hidden(viewer)}
      <button class="btn-link f6 color-fg-danger" type="submit" aria-label="Delete comment ${String(id)}">Delete</button>
    </form>`;
}

/** The forms under a thread: a reply, and resolving or reopening it. */
function threadForms(thread: ReviewThread, viewer: ThreadViewer): Html {
  const first = foldId(thread.first.id);
  const reply = viewer.mayReply
    ? html`<form method="post" action="${viewer.url}/comments" class="mt-2">
      ${hidden(viewer)}<input type="hidden" name="in_reply_to" value="${String(first)}">
      <textarea class="form-control width-full" name="body" rows="2" required aria-label="Reply to thread ${String(first)}" placeholder="Reply…"></textarea>
      <button class="btn btn-sm mt-1" type="submit">Reply</button>
    </form>`
    : null;
  const toggle = thread.resolved ? 'unresolve' : 'resolve';
  const resolve = viewer.mayResolve
    ? html`<form method="post" action="${viewer.url}/comments/${String(first)}/${toggle}" class="mt-2">
      ${hidden(viewer)}
      <button class="btn btn-sm" type="submit">${thread.resolved ? 'Unresolve conversation' : 'Resolve conversation'}</button>
    </form>`
    : null;
  return html`${reply}${resolve}`;
}

/**
 * One review thread: its comments, oldest first (the diff hunk once, above the first, when
 * asked), then the reply and resolve forms. A resolved thread is folded into a `<details>`
 * whose summary says who resolved it; it opens without any script.
 */
export function reviewThreadView(
  thread: ReviewThread,
  parts: ThreadParts,
  viewer: ThreadViewer,
  options: { hunk?: boolean } = {},
): Html {
  const comments = thread.comments.map((comment, i) => {
    const actions = commentActions(comment, viewer);
    return parts.box(comment, {
      hunk: options.hunk === true && i === 0,
      ...(actions ? { actions } : {}),
    });
  });
  const id = `thread-${foldId(thread.first.id)}`;
  const inner = html`${comments}${threadForms(thread, viewer)}`;
  if (!thread.resolved)
    return html`<div class="kiln-thread my-2" id="${id}" data-thread="open">${inner}</div>`;
  const by = parts.handleOf(thread.resolved.byId) ?? 'someone';
  return html`<details class="kiln-thread my-2 Box p-2" id="${id}" data-thread="resolved">
    <summary class="f6 color-fg-muted"><span class="text-mono">${thread.first.path}</span> — resolved by <strong>${by}</strong> ${relativeTime(thread.resolved.at)} (${String(thread.comments.length)} ${thread.comments.length === 1 ? 'comment' : 'comments'})</summary>
    ${inner}
  </details>`;
}
