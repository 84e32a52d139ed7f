import type {
  ListedRegistrationToken,
  ListedRunner,
} from '../../../domain/runners/runner.types.ts';
import { type Html, html } from '../html.ts';
import type { PageContext } from '../layout.ts';
import {
  csrfField,
  type FreshToken,
  freshTokenNotice,
  runnersTable,
  tokensTable,
} from './admin-runner-tables.view.ts';

/** `/admin/runners`: every runner and registration token, and the form that mints one. */
export function adminRunnersPage(
  context: PageContext,
  runners: readonly ListedRunner[],
  tokens: readonly ListedRegistrationToken[],
  fresh?: FreshToken,
): Html {
  return html`<h1 class="h2 mb-2">Runners</h1>
    <p class="color-fg-muted mb-3">CI runners (act_runner, the Forgejo runner) register with a registration token and then appear here. Runners are not given jobs yet. See <code>docs/runners.md</code>.</p>
    ${fresh ? freshTokenNotice(fresh, 'instance') : null}
    <div class="Box mb-4">
      <div class="Box-header d-flex flex-items-center">
        <h2 class="Box-title flex-auto">Registration tokens</h2>
        <form method="post" action="/admin/runners/tokens">
          ${csrfField(context)}
          <button class="btn btn-sm btn-primary" type="submit">Generate instance token</button>
        </form>
      </div>
      ${tokensTable(context, tokens, (token) => `/admin/runners/tokens/${token.id}/delete`)}
      <div class="Box-footer f6 color-fg-muted">Tokens are reusable. Deleting one stops new registrations only; runners registered with it keep working.</div>
    </div>
    <div class="Box">
      <div class="Box-header"><h2 class="Box-title">Registered runners</h2></div>
      ${runnersTable(context, runners, (runner) => `/admin/runners/${runner.id}/delete`)}
      <div class="Box-footer f6 color-fg-muted">A runner not heard from for a minute is offline. Deleting a runner makes its credentials stop working at once.</div>
    </div>`;
}
