import type { MergeBlocker, MergeGate } from '../../../domain/pulls/merge-gate.service.ts';
import type { PullReview } from '../../../domain/pulls/pull-review.types.ts';
import type { PullTimelineEntry } from '../../../domain/pulls/pull-timeline.types.ts';
import type { ReviewThread } from '../../../domain/pulls/review-threads.ts';
import { foldId } from '../../../lib/ids.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import { relativeTime } from './time.ts';

/** A review as the timeline shows it: rendered body and the threads it started. */
export type TimelineReview = {
  readonly review: PullReview;
  readonly body: Html | null;
  readonly threads: readonly ReviewThread[];
};

/** What the conversation tab lists under the description, oldest first. */
export type TimelineItem =
  | { readonly kind: 'review'; readonly at: Date; readonly review: TimelineReview }
  | { readonly kind: 'event'; readonly at: Date; readonly entry: PullTimelineEntry };

const VERDICTS: Readonly<Record<string, { text: string; label: string; icon: string }>> = {
  APPROVED: { text: 'approved these changes', label: 'Label--success', icon: 'check' },
  REQUEST_CHANGES: { text: 'requested changes', label: 'Label--danger', icon: 'x' },
  COMMENT: { text: 'reviewed', label: 'Label--secondary', icon: 'comment' },
  PENDING: { text: 'started a review (pending)', label: 'Label--attention', icon: 'dot-fill' },
};

/** Reviews and events in the order they happened (a review at its submission). */
export function timelineItems(
  reviews: readonly TimelineReview[],
  entries: readonly PullTimelineEntry[],
): TimelineItem[] {
  const items: TimelineItem[] = [
    ...reviews.map((review) => ({
      kind: 'review' as const,
      at: review.review.submittedAt ?? review.review.createdAt,
      review,
    })),
    ...entries.map((entry) => ({ kind: 'event' as const, at: entry.createdAt, entry })),
  ];
  return items.sort((a, b) => a.at.getTime() - b.at.getTime());
}

/**
 * The timeline: each review with its verdict, author, time, body and threads (`thread` draws
 * one), and each push, force push, close, reopen and merge with who did it and when.
 */
export function timelineView(
  items: readonly TimelineItem[],
  who: (userId: string | null) => string,
  thread: (thread: ReviewThread) => Html,
  dismiss: (review: PullReview) => Html | null,
): Html {
  if (items.length === 0) return html``;
  const rows = items.map((item) => {
    if (item.kind === 'event') return eventRow(item.entry, who);
    const { review, body, threads } = item.review;
    const verdict = VERDICTS[review.state] ?? VERDICTS.COMMENT;
    const id = foldId(review.id);
    return html`<div class="Box mb-3 kiln-review" id="review-${String(id)}" data-review-state="${review.state}"><div class="Box-header d-flex flex-items-center kiln-gap">
      ${icon(verdict?.icon ?? 'comment')}<strong>${who(review.reviewerId)}</strong>
      <span class="flex-auto">${verdict?.text ?? 'reviewed'} ${relativeTime(review.submittedAt ?? review.createdAt)}</span>
      ${review.dismissed ? html`<span class="Label Label--secondary" data-dismissed>Dismissed</span>` : html`<span class="Label ${verdict?.label ?? ''}">${review.state.replace('_', ' ').toLowerCase()}</span>`}
      ${dismiss(review)}
    </div>
    ${body ? html`<div class="Box-body markdown-body">${body}</div>` : null}
    ${review.dismissed && review.dismissMessage ? html`<div class="Box-body f6 color-fg-muted">Dismissed by ${who(review.dismissedById)}: ${review.dismissMessage}</div>` : null}
    ${threads.length > 0 ? html`<div class="Box-body">${threads.map(thread)}</div>` : null}</div>`;
  });
  return html`<h3 class="h4 mb-2">Timeline</h3><div id="timeline">${rows}</div>`;
}

function eventRow(entry: PullTimelineEntry, who: (userId: string | null) => string): Html {
  const short = (sha: string | null) => html`<code>${(sha ?? '').slice(0, 7)}</code>`;
  const actor = html`<strong>${who(entry.actorId)}</strong>`;
  const text = (() => {
    switch (entry.kind) {
      case 'push':
        return html`${actor} pushed ${String(entry.commits)} commit${entry.commits === 1 ? '' : 's'} (${short(entry.oldSha)}..${short(entry.newSha)})`;
      case 'force_push':
        return html`${actor} force-pushed the head from ${short(entry.oldSha)} to ${short(entry.newSha)}`;
      case 'closed':
        return html`${actor} closed this pull request`;
      case 'reopened':
        return html`${actor} reopened this pull request`;
      case 'merged':
        return html`${actor} merged this pull request`;
      case 'merge_override':
        return html`${actor} merged as an administrator past: ${(entry.note ?? '').split('\n').join('; ')}`;
    }
  })();
  return html`<div class="d-flex flex-items-center kiln-gap p-2 mb-2 color-fg-muted" data-timeline-event="${entry.kind}">${icon(entry.kind === 'merged' || entry.kind === 'merge_override' ? 'git-merge' : 'dot-fill')}<span>${text} ${relativeTime(entry.createdAt)}</span></div>`;
}

/** What still blocks the merge, one line each; nothing when nothing does. */
export function mergeBlockersView(
  gate: MergeGate,
  who: (userId: string | null) => string,
): Html | null {
  if (gate.blockers.length === 0) return null;
  const line = (blocker: MergeBlocker) => {
    switch (blocker.kind) {
      case 'approvals':
        return `Approvals: ${blocker.have} of ${blocker.need}`;
      case 'changes_requested':
        return `Changes requested by ${blocker.by.map((id) => who(id)).join(', ')}`;
      case 'checks':
        return `Required checks: ${
          gate.checks
            .filter((check) => check.state !== 'success')
            .map((check) => `${check.pattern} ${check.state === 'failure' ? 'failing' : 'pending'}`)
            .join(', ') || 'not all succeeded'
        }`;
      case 'outdated':
        return 'Branch out of date: the base branch has commits the head lacks';
      case 'merge_whitelist':
        return 'You are not on the merge whitelist of this branch';
      case 'unsigned':
        return 'Signed commits required: Kiln does not sign the commits a merge makes';
      case 'protected_files':
        return `Changes protected files: ${blocker.files.join(', ')}`;
    }
  };
  return html`<div class="mb-2" id="merge-blockers"><div class="color-fg-attention">${icon('alert')} Merging is blocked:</div>
    <ul class="ml-4">${gate.blockers.map((blocker) => html`<li data-blocker="${blocker.kind}">${line(blocker)}</li>`)}</ul></div>`;
}
