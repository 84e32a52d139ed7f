import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { MergeGate } from '../../../domain/pulls/merge-gate.service.ts';
import type { Mergeability } from '../../../domain/pulls/mergeability.service.ts';
import { pullPermissions } from '../../../domain/pulls/pull.policy.ts';
import type { PullInContext } from '../../../domain/pulls/pull.service.ts';
import type { PullReview } from '../../../domain/pulls/pull-review.types.ts';
import { mayAdministerRepo, mayWrite } from '../../../domain/repos/repo.policy.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { foldId } from '../../../lib/ids.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import type { PageContext } from '../layout.ts';
import { METERED } from '../metered.ts';
import type { Pages } from '../page.ts';
import { PullParams } from '../page-params.ts';
import { pullApprovalNotice } from '../views/approval-notice.ts';
import { mergeabilityStatus } from '../views/mergeability.ts';
import { pullUrl } from '../views/pull.ts';
import { mergeBlockersView, timelineView } from '../views/pull-timeline.ts';
import { requiredChecksBox } from '../views/required-checks.ts';
import { reviewThreadView } from '../views/review-thread.ts';
import type { PullPageFrame, PullPageRouteDeps } from './pull-page-frame.ts';
import { PULL_CONFIRMATIONS } from './pull-state.routes.ts';
import { loadTimeline } from './pull-timeline-parts.ts';
import { pullMarkdownBase } from './review-comment-boxes.ts';

/** What a page that shows no merge button assumes of CI. */
const OPEN_GATE: MergeGate = { enforced: false, checks: [], passed: true, blockers: [] };

/** The Dismiss button an administrator sees on a standing verdict of an open pull. */
function dismissForm(found: PullInContext, context: PageContext) {
  const { base, pull } = found;
  const url = pullUrl(base.repo, pull.number);
  return (review: PullReview) =>
    mayAdministerRepo(base.access) &&
    pull.state === 'open' &&
    !review.dismissed &&
    (review.state === 'APPROVED' || review.state === 'REQUEST_CHANGES')
      ? html`<form method="post" action="${url}/reviews/${String(foldId(review.id))}/dismiss" class="d-inline"><input type="hidden" name="_csrf" value="${context.csrf}"><input type="hidden" name="message" value="Dismissed"><button class="btn btn-sm" type="submit" data-dismiss-review>Dismiss</button></form>`
      : null;
}

/** The box under the timeline: merged, closed (reopen), or what merging waits for and its buttons. */
function pullActions(
  found: PullInContext,
  viewer: User | undefined,
  known: { mergeable: Mergeability | undefined; gate: MergeGate },
  who: (userId: string | null) => string,
  context: PageContext,
): Html | null {
  const { base, pull } = found;
  const { mergeable, gate } = known;
  const url = pullUrl(base.repo, pull.number);
  if (!viewer)
    return html`<p class="color-fg-muted"><a href="/login?redirect=${encodeURIComponent(url)}">Sign in</a> to take part.</p>`;
  const may = pullPermissions(viewer, base.access, pull);
  const held = mergeable?.state === 'conflict' || !gate.passed;
  // An admin may merge past what the protection waits for, never past the whitelist.
  const mayForce =
    mayAdministerRepo(base.access) &&
    gate.blockers.length > 0 &&
    gate.blockers.every((blocker) => blocker.kind !== 'merge_whitelist') &&
    mergeable?.state !== 'conflict';
  const form = (action: string, label: string, cls: string, disabled = false) =>
    html`<form method="post" action="${url}/${action}" class="d-inline"${action === 'reopen' ? '' : html` data-confirm="${PULL_CONFIRMATIONS[action === 'merge' ? 'merge' : 'close'].title}"`}><input type="hidden" name="_csrf" value="${context.csrf}"><button class="btn ${cls}" type="submit" ${action === 'merge' ? html`data-merge-button` : null} ${disabled ? html`disabled` : null}>${label}</button></form>`;
  if (pull.merged)
    return html`<div class="Box p-3 color-fg-done">${icon('git-merge')} Merged into <span class="branch-name">${pull.baseBranch}</span>${pull.mergeCommitSha ? html` as <code>${pull.mergeCommitSha.slice(0, 7)}</code>` : null}.</div>`;
  if (pull.state === 'closed')
    return may.toggle
      ? html`<div class="Box p-3">This pull request is closed. ${form('reopen', 'Reopen pull request', 'btn-sm')}</div>`
      : null;
  return html`<div class="Box p-3">${mergeabilityStatus(url, mergeable)}${mergeBlockersView(gate, who)}${requiredChecksBox(base.repo, gate)}<div class="d-flex flex-items-center flex-wrap kiln-gap">
        <span class="flex-auto">${may.merge ? 'Merging makes a merge commit on the base branch.' : 'Only people who can write to this repository can merge.'}</span>
        ${may.toggle ? form('close', 'Close pull request', 'btn-sm') : null}
        ${may.merge ? form('merge', 'Merge pull request', 'btn-primary', held) : null}
        ${mayForce ? form('force-merge', 'Merge without waiting (administrator)', 'btn-danger btn-sm') : null}
      </div></div>`;
}

/**
 * A pull's conversation tab: its description, the timeline (the first and latest items, or all
 * of them), the line comments made on their own, and what merging waits for. Only the threads
 * the timeline shows are read and drawn.
 */
export function registerPullConversationRoute(
  parent: FastifyInstance,
  deps: PullPageRouteDeps,
  pages: Pages,
  frame: PullPageFrame,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  server.get(
    '/repos/:owner/:name/pulls/:number',
    { ...METERED, schema: { params: PullParams } },
    async (request, reply) => {
      const found = await frame.load(request);
      const viewer = viewerUser(request.viewer);
      const { base, pull } = found;
      const url = pullUrl(base.repo, pull.number);
      // What is known now; an unknown answer is checked in the background, never waited for.
      const [bodyHtml, mergeable, waiting, gate] = await Promise.all([
        pull.body.trim()
          ? pages.renderer.markdown(pull.body, pullMarkdownBase(found))
          : Promise.resolve(html`<p class="color-fg-muted"><em>No description provided.</em></p>`),
        deps.services.mergeability.knownFor(found),
        deps.services.ciRunApprovals.waitingOf(pull.id),
        // Shown above the merge button only: open pulls, to people signed in.
        viewer && pull.state === 'open'
          ? deps.services.mergeGates.gateOf(base.repo, pull.baseBranch, pull.headSha, pull, viewer)
          : OPEN_GATE,
      ]);
      const blockedBy = gate.blockers.flatMap((b) => (b.kind === 'changes_requested' ? b.by : []));
      const all = (request.query as Record<string, unknown> | undefined)?.timeline === 'all';
      const timeline = await loadTimeline(deps, pages.renderer, found, viewer, {
        extraPeople: blockedBy,
        all,
      });
      const parts = timeline.boxes;
      return frame.render(request, reply, found, 'conversation', (context) => {
        const threadViewer = frame.threadViewer(found, viewer, context, 'conversation');
        const thread = (shown: Parameters<typeof reviewThreadView>[0]) =>
          reviewThreadView(shown, parts, threadViewer, { hunk: true });
        return html`<div class="Box mb-3"><div class="Box-body markdown-body">${bodyHtml}</div></div>
      ${timelineView(timeline.items, timeline.who, thread, dismissForm(found, context))}
      ${timeline.hidden > 0 ? html`<p class="f6 color-fg-muted" id="timeline-hidden">${String(timeline.hidden)} items between the first and the latest are not shown. <a href="${url}?timeline=all">Show the whole timeline</a></p>` : null}
      ${timeline.loose.length > 0 ? html`<h3 class="h4 mb-2">Review comments</h3>${timeline.loose.map(thread)}` : null}
      ${pullApprovalNotice(context, { repo: base.repo, waiting, canApprove: mayWrite(base.access) })}${pullActions(found, viewer, { mergeable, gate }, timeline.who, context)}`;
      });
    },
  );
}
