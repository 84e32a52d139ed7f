import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import type { PageContext } from '../layout.ts';
import { CONFIRM_FIELD } from './confirmation.ts';

/**
 * A destructive action behind a second step that needs no script: the first button only opens
 * the disclosure, whose own button posts the form. `label` names the first button for assistive
 * technology (and tests), as several may share one page. The form carries the confirmation
 * field (see `http/web/confirmation.ts`), as the disclosure was the second step.
 */
export function confirmedDelete(
  context: PageContext,
  options: { action: string; fields: Record<string, string>; what: string; label: string },
): Html {
  const hidden = Object.entries(options.fields).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  );
  return html`<details class="details-reset kiln-confirm">
    <summary class="btn btn-sm btn-danger" aria-label="${options.label}">${icon('trash')} Delete</summary>
    <form method="post" action="${options.action}" class="Box p-2 mt-2 f6">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <input type="hidden" name="${CONFIRM_FIELD}" value="yes">
      ${hidden}
      <p class="mb-2">Delete ${options.what}? This cannot be undone.</p>
      <button class="btn btn-sm btn-danger" type="submit">Yes, delete</button>
    </form>
  </details>`;
}
