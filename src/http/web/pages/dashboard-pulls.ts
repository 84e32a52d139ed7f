import type { App } from '../../../app.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';

/**
 * The dashboard's pull request section. Pull requests are a domain of their own; until their
 * service lists a person's recent pulls, this slot says so. It is the only place the start page
 * needs to change when they arrive.
 */
export async function dashboardPulls(_app: App, _user: User): Promise<Html> {
  return html`<section class="Box mb-4" aria-labelledby="pulls-heading">
    <div class="Box-header"><h2 class="Box-title" id="pulls-heading">${icon('git-pull-request')} Recent pull requests</h2></div>
    <div class="Box-body color-fg-muted">Pull requests you open or review will show up here.</div>
  </section>`;
}
