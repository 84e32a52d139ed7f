import type { Mergeability } from '../../../domain/pulls/mergeability.service.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';

/** `…/pulls/{n}/mergeability`: what the pull page's script asks while the answer is not known. */
export function mergeabilityUrl(pullUrl: string): string {
  return `${pullUrl}/mergeability`;
}

/**
 * Whether an open pull merges cleanly, above its merge button. While the check runs, the page
 * says so with a link that reloads it; kiln.js asks `mergeabilityUrl` instead and fills in the
 * answer (and disables the button on a conflict), so the page itself never waits for git.
 */
export function mergeabilityStatus(pullUrl: string, answer: Mergeability | undefined): Html {
  if (!answer) {
    return html`<div class="mb-2" id="mergeability" data-mergeability="${mergeabilityUrl(pullUrl)}" role="status">
      <span data-mergeability-text>${icon('sync')} Checking whether this can be merged…</span>
      <a href="${pullUrl}" data-mergeability-reload>Reload</a>
    </div>`;
  }
  if (answer.state === 'clean') {
    return html`<div class="mb-2 color-fg-success" id="mergeability" role="status">${icon('check')} This branch has no conflicts with the base branch.</div>`;
  }
  return html`<div class="mb-2 color-fg-danger" id="mergeability" role="status">${icon('alert')} This branch has conflicts that must be resolved:
    <ul class="ml-4 mt-1">${answer.files.map((file) => html`<li><code>${file}</code></li>`)}</ul>
  </div>`;
}
