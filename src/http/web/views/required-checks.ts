import type { CheckState, RequiredCheck } from '../../../domain/ci/required-checks.ts';
import type { MergeGate } from '../../../domain/pulls/merge-gate.service.ts';
import type { Repository } from '../../../domain/repos/repo.types.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import { runUrl } from './runs-list.ts';

const STATES: Readonly<Record<CheckState, { icon: string; label: string; color: string }>> = {
  success: { icon: 'check', label: 'Successful', color: 'color-fg-success' },
  failure: { icon: 'x', label: 'Failing', color: 'color-fg-danger' },
  pending: { icon: 'dot-fill', label: 'Pending', color: 'color-fg-attention' },
};

const SEVERITY: Readonly<Record<CheckState, number>> = { failure: 0, pending: 1, success: 2 };
/** Jobs listed under one pattern; a pattern such as `*` may match hundreds. */
const MAX_SHOWN = 20;

/**
 * The base branch's required checks above a pull's merge button: each pattern with its state
 * and the jobs it matched, linked; one that matched nothing says it waits for such a check.
 * Nothing when the branch asks for no checks.
 */
export function requiredChecksBox(repo: Repository, gate: MergeGate): Html | null {
  if (!gate.enforced) return null;
  const summary = gate.passed
    ? html`<div class="color-fg-success">${icon('check')} All required checks have succeeded.</div>`
    : html`<div class="color-fg-attention">${icon('alert')} Merging waits until every required check has succeeded.</div>`;
  return html`<div class="mb-2" id="required-checks">${summary}
    <ul class="list-style-none ml-2 mt-1">${gate.checks.map((check) => requiredCheckRow(repo, check))}</ul>
  </div>`;
}

function requiredCheckRow(repo: Repository, check: RequiredCheck): Html {
  const state = STATES[check.state];
  const matches =
    check.matches.length === 0
      ? html`<span class="color-fg-muted">no such check has reported yet</span>`
      : [
          // Worst first, so what holds the merge is among those shown.
          ...[...check.matches]
            .sort((a, b) => SEVERITY[a.state] - SEVERITY[b.state])
            .slice(0, MAX_SHOWN)
            .map((match) => {
              const look = STATES[match.state];
              const href = `${runUrl(repo, match.runNumber)}/jobs/${match.jobId}`;
              return html`<a class="mr-2 ${look.color}" href="${href}" data-check-state="${match.state}">${match.context}</a>`;
            }),
          check.matches.length > MAX_SHOWN
            ? html`<span class="color-fg-muted">and ${check.matches.length - MAX_SHOWN} more</span>`
            : null,
        ];
  return html`<li class="${state.color}" data-required-check="${check.pattern}" data-check-state="${check.state}">
    ${icon(state.icon)} <code>${check.pattern}</code> ${state.label}: ${matches}
  </li>`;
}
