import type { DomainServices } from '../../../domain/services.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import { pullRow } from '../views/pull.ts';

/** The dashboard's section of the pull requests the signed-in person opened recently. */
export async function dashboardPulls(
  deps: { readonly services: Pick<DomainServices, 'pulls'> },
  user: User,
): Promise<Html> {
  const recent = await deps.services.pulls.recentByAuthor(user, 10);
  return html`<section class="Box mb-4" aria-labelledby="pulls-heading">
    <div class="Box-header"><h2 class="Box-title" id="pulls-heading">${icon('git-pull-request')} Your recent pull requests</h2></div>
    ${
      recent.length === 0
        ? html`<div class="Box-body color-fg-muted">Pull requests you open will show up here.</div>`
        : html`<ul>${recent.map(({ repo, pull }) => pullRow(repo, pull, user))}</ul>`
    }
  </section>`;
}
