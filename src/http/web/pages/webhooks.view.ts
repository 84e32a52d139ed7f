import {
  type Delivery,
  HOOK_EVENTS,
  HOOK_TYPES,
  type Webhook,
} from '../../../domain/webhooks/webhook.types.ts';
import { type Html, html } from '../html.ts';
import type { PageContext } from '../layout.ts';
import { csrfField, when } from './admin-runner-tables.view.ts';
import { choiceOf, type EventChoice } from './webhook-form.ts';

/** What every webhook page names: whose hooks these are and where they live. */
export type HooksPlace = {
  /** The links before the title: the repository and its settings, the organisation, the admin area. */
  readonly trail: ReadonlyArray<{ readonly label: string; readonly href: string }>;
  /** Whose hooks, in the page titles: `alice/app`, `acme`, `Admin`. */
  readonly label: string;
  /** Where the events come from, in the list's explanation: `this repository`, … */
  readonly scope: string;
  /** `/repos/{owner}/{name}/settings/hooks`, `/org/{org}/settings/hooks`, `/admin/hooks`. */
  readonly path: string;
  /** Whether a hook here can be sent a test delivery (the latest push of its repository). */
  readonly testable: boolean;
  readonly error?: string | undefined;
  /** False without SERVICE_SECRET_KEY: hooks then cannot keep a secret. */
  readonly secretsEnabled: boolean;
};

/** One hook of the list, with its latest delivery if any. */
export type ListedHook = { readonly hook: Webhook; readonly last: Delivery | undefined };

const CELL = 'p-2 border-top';

const CHOICES: ReadonlyArray<[EventChoice, string]> = [
  ['push_only', 'Push events only'],
  ['send_everything', 'All events'],
  ['choose_events', 'Let me choose:'],
];

/** The heading shared by the webhook pages, with the place's breadcrumb and any error. */
export function hooksHeading(place: HooksPlace, title: string): Html {
  const links = place.trail.map(
    ({ label, href }, index) => html`${index > 0 ? ' / ' : null}<a href="${href}">${label}</a>`,
  );
  return html`<nav aria-label="Breadcrumb" class="f4 mb-2">${links}</nav>
    <h1 class="h2 mb-3">${title}</h1>
    ${place.error ? html`<div class="flash flash-error mb-3" role="alert">${place.error}</div>` : null}`;
}

/**
 * A delivery's outcome in a few words: the HTTP status, the error, or that it waits. An attempt
 * that failed before any answer (a refused address, a timeout) shows its reason even while the
 * delivery waits for its next try: "queued" alone hid why nothing arrived.
 */
export function deliveryStatus(delivery: Delivery | undefined): string {
  if (!delivery) return 'no deliveries yet';
  if (delivery.responseStatus !== null) return `${delivery.responseStatus}`;
  if (delivery.error) {
    return delivery.state === 'queued' ? `${delivery.error} (will retry)` : delivery.error;
  }
  return delivery.state === 'queued' ? 'queued' : delivery.state;
}

function radio(name: string, value: string, checked: boolean, label: string): Html {
  return html`<label class="d-block"><input type="radio" name="${name}" value="${value}" ${checked ? html`checked` : null}> ${label}</label>`;
}

/** The fields of a hook, empty for a new one; its secret is never written back into the page. */
export function hookFields(place: HooksPlace, hook: Webhook | undefined): Html {
  const events = hook?.events ?? ['push'];
  const choice = choiceOf(events);
  const type = hook
    ? html`<p><strong>${hook.type}</strong></p>`
    : html`<select class="form-select" id="hook-type" name="type">${HOOK_TYPES.map(
        (name) => html`<option value="${name}">${name}</option>`,
      )}</select>`;
  const secretHint = hook?.hasSecret
    ? 'A secret is set. Leave blank to keep it.'
    : 'Signs each delivery (X-Gitea-Signature, HMAC-SHA256 of the body).';
  return html`<div class="form-group mt-0"><div class="form-group-header"><label for="hook-type">Type</label></div>
      <div class="form-group-body">${type}</div></div>
    <div class="form-group"><div class="form-group-header"><label for="hook-url">Target URL</label></div>
      <div class="form-group-body"><input class="form-control width-full" id="hook-url" name="url" type="url" required value="${hook?.url ?? ''}"></div></div>
    <div class="form-group"><div class="form-group-header"><label for="hook-content-type">Content type</label></div>
      <div class="form-group-body"><select class="form-select" id="hook-content-type" name="content_type">
        <option value="json" ${hook?.contentType === 'form' ? null : html`selected`}>application/json</option>
        <option value="form" ${hook?.contentType === 'form' ? html`selected` : null}>application/x-www-form-urlencoded</option>
      </select></div></div>
    ${
      place.secretsEnabled
        ? html`<div class="form-group"><div class="form-group-header"><label for="hook-secret">Secret</label></div>
      <div class="form-group-body"><input class="form-control" id="hook-secret" name="secret" type="password" autocomplete="new-password" value="">
      <p class="note">${secretHint}</p></div></div>`
        : html`<p class="note">Secrets are unavailable: the server has no <code>SERVICE_SECRET_KEY</code>.</p>`
    }
    <fieldset class="form-group"><legend class="text-bold">Trigger on</legend>
      ${CHOICES.map(([value, label]) => radio('events', value, value === choice, label))}
      <div class="ml-4">${HOOK_EVENTS.map(
        (event) =>
          html`<label class="d-block"><input type="checkbox" name="event" value="${event}" ${choice === 'choose_events' && events.includes(event) ? html`checked` : null}> <code>${event}</code></label>`,
      )}</div>
    </fieldset>
    <div class="form-group"><div class="form-group-header"><label for="hook-branch-filter">Branch filter</label></div>
      <div class="form-group-body"><input class="form-control" id="hook-branch-filter" name="branch_filter" value="${hook?.branchFilter ?? '*'}">
      <p class="note">A glob such as <code>main</code> or <code>{main,release/*}</code>; <code>*</code> for every branch.</p></div></div>
    <div class="form-group"><label><input type="checkbox" name="active" value="on" ${hook === undefined || hook.active ? html`checked` : null}> Active</label>
      ${hook?.disabledReason ? html`<p class="note color-fg-danger">Switched off: ${hook.disabledReason}</p>` : null}</div>`;
}

/** `…/hooks`: the hooks of a repository, an organisation or the instance, and the form adding one. */
export function webhooksPage(
  context: PageContext,
  place: HooksPlace,
  hooks: readonly ListedHook[],
): Html {
  const rows = hooks.map(
    ({ hook, last }) => html`<tr>
      <td class="${CELL}"><a href="${place.path}/${hook.wireId}">${hook.url}</a></td>
      <td class="${CELL}">${hook.type}</td>
      <td class="${CELL}">${hook.active ? 'active' : 'inactive'}</td>
      <td class="${CELL}">${deliveryStatus(last)}${last ? html` <span class="color-fg-muted">${when(last.createdAt)}</span>` : null}</td>
    </tr>`,
  );
  return html`${hooksHeading(place, 'Webhooks')}
    <div class="Box mb-4">
      <div class="Box-header"><h2 class="Box-title">Webhooks</h2></div>
      <div class="Box-body f6 color-fg-muted">Kiln sends a POST to each URL when something happens in ${place.scope}, as Gitea does.</div>
      ${
        hooks.length === 0
          ? html`<div class="Box-body">No webhooks yet.</div>`
          : html`<table class="width-full"><thead><tr><th class="p-2 text-left">URL</th><th class="p-2 text-left">Type</th><th class="p-2 text-left">State</th><th class="p-2 text-left">Last delivery</th></tr></thead><tbody>${rows}</tbody></table>`
      }
    </div>
    <div class="Box mb-4" id="add">
      <div class="Box-header"><h2 class="Box-title">Add webhook</h2></div>
      <form method="post" action="${place.path}" class="Box-body">
        ${csrfField(context)}
        ${hookFields(place, undefined)}
        <button class="btn btn-primary" type="submit">Add webhook</button>
      </form>
    </div>`;
}
