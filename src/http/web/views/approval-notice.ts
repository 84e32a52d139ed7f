import type { WorkflowRun } from '../../../domain/ci/ci.types.ts';
import type { Repository } from '../../../domain/repos/repo.types.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import type { PageContext } from '../layout.ts';
import { runUrl } from './runs-list.ts';

/** What the notice says, on the run page and the pull request page alike. */
export const APPROVAL_NEEDED = 'This run from a fork needs approval by someone with write access';

/**
 * The notice of a run from a fork waiting for approval, with the Approve and run button for
 * someone who may write to the repository; everyone else sees the notice alone. `back` names
 * the page the form returns to (`pull` for the pull request's page, else the run's).
 */
export function approvalNotice(
  context: PageContext,
  view: {
    repo: Repository;
    run: WorkflowRun;
    canApprove: boolean;
    back?: 'pull';
    /** How many runs of the pull request wait; one approval lets them all go. */
    waiting?: number;
  },
): Html {
  const { repo, run } = view;
  const many = (view.waiting ?? 1) > 1 ? ` (${view.waiting} runs of this pull request wait)` : '';
  return html`<div class="flash flash-warn mb-3 d-flex flex-items-center flex-wrap kiln-gap" role="status" data-approval="${String(run.number)}">
    <span class="flex-auto">${icon('shield')} ${APPROVAL_NEEDED}.${many}</span>
    ${
      view.canApprove
        ? html`<form method="post" action="${runUrl(repo, run.number)}/approve">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      ${view.back ? html`<input type="hidden" name="back" value="${view.back}">` : null}
      <button class="btn btn-sm btn-primary" type="submit">Approve and run</button>
    </form>`
        : null
    }
  </div>`;
}

/**
 * The pull request page's notice: one for all the pull's runs waiting for approval (the oldest
 * named, since one approval lets them all go), or nothing when none waits.
 */
export function pullApprovalNotice(
  context: PageContext,
  view: { repo: Repository; waiting: readonly WorkflowRun[]; canApprove: boolean },
): Html | null {
  const [first] = view.waiting;
  if (first === undefined) return null;
  const { repo, canApprove } = view;
  return approvalNotice(context, {
    repo,
    run: first,
    canApprove,
    back: 'pull',
    waiting: view.waiting.length,
  });
}
