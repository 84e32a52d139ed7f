import { type Html, html } from '../html.ts';

/**
 * The "Review changes" form of a pull's files tab: a body and a verdict, submitting the
 * viewer's pending review with its line comments (or a new review with only a body). The
 * author of the pull may only comment, as Gitea allows.
 */
export function reviewChangesForm(options: {
  readonly url: string;
  readonly csrf: string;
  readonly pending: number;
  readonly ownPull: boolean;
}): Html {
  const verdict = (value: string, label: string, checked = false) =>
    html`<label class="d-block"><input type="radio" name="event" value="${value}" ${checked ? html`checked` : null}> ${label}</label>`;
  return html`<details class="Box mb-3" id="review-changes"${options.pending > 0 ? html` open` : null}><summary class="Box-header btn btn-sm btn-primary">Review changes${options.pending > 0 ? ` (${options.pending} pending)` : ''}</summary>
    <form method="post" action="${options.url}/reviews" class="Box-body">
      <input type="hidden" name="_csrf" value="${options.csrf}">
      <label for="review-body" class="d-block mb-1 f6">Review summary</label>
      <textarea class="form-control width-full mb-2" id="review-body" name="body" rows="3"></textarea>
      ${verdict('COMMENT', 'Comment', true)}
      ${options.ownPull ? null : html`${verdict('APPROVED', 'Approve')}${verdict('REQUEST_CHANGES', 'Request changes')}`}
      ${options.pending > 0 ? html`<p class="f6 color-fg-muted">Submits your ${String(options.pending)} pending comment${options.pending === 1 ? '' : 's'} with the review.</p>` : null}
      <button class="btn btn-primary btn-sm mt-2" type="submit">Submit review</button>
    </form></details>`;
}
