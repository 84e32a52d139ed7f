import { type Html, html } from '../html.ts';
import type { PageContext } from '../layout.ts';
import { adminFrame } from '../views/admin-frame.ts';
import {
  type FreshToken,
  type RunnerSections,
  runnerSections,
} from './admin-runner-tables.view.ts';

/** `/admin/runners`: every runner and registration token, and the form that mints one. */
export function adminRunnersPage(
  context: PageContext,
  runners: RunnerSections['runners'],
  tokens: RunnerSections['tokens'],
  fresh?: FreshToken,
): Html {
  return adminFrame(
    'runners',
    html`<h1 class="h2 mb-2">Runners</h1>
    <p class="color-fg-muted mb-3">CI runners (act_runner, the Forgejo runner) register with a registration token, then appear here and take the jobs whose labels they declare. See <code>docs/runners.md</code>.</p>
    ${runnerSections(context, {
      what: 'instance',
      runners,
      tokens,
      fresh,
      tokensPath: '/admin/runners/tokens',
      runnersPath: '/admin/runners',
      text: {
        tokensTitle: 'Registration tokens',
        tokensNote: html`Tokens are reusable. Deleting one stops new registrations only; runners registered with it keep working.`,
        runnersTitle: 'Registered runners',
        runnersNote:
          'A runner not heard from for a minute is offline. Deleting a runner makes its credentials stop working at once.',
      },
      more: false,
    })}`,
  );
}
