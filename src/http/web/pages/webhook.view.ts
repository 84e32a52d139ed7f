import type { Delivery, Webhook } from '../../../domain/webhooks/webhook.types.ts';
import { type Html, html } from '../html.ts';
import type { PageContext } from '../layout.ts';
import { confirmedDelete } from '../views/confirmed-delete.ts';
import { csrfField, when } from './admin-runner-tables.view.ts';
import { deliveryStatus, type HooksPlace, hookFields, hooksHeading } from './webhooks.view.ts';

function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
}

function exchange(title: string, headers: Record<string, string>, body: string | null): Html {
  return html`<h4 class="f6 mt-2">${title}</h4>
    <pre class="f6 p-2 color-bg-subtle overflow-auto">${headerLines(headers)}</pre>
    <pre class="f6 p-2 color-bg-subtle overflow-auto">${body ?? ''}</pre>`;
}

/** One delivery: a summary line that opens on the request and response as they went. */
function deliveryItem(context: PageContext, action: string, delivery: Delivery): Html {
  const duration = delivery.durationMs === null ? '' : `${delivery.durationMs} ms`;
  return html`<li class="Box-row" id="delivery-${delivery.id}">
    <details>
      <summary><code>${delivery.eventType}</code> · ${when(delivery.createdAt)} · <strong>${deliveryStatus(delivery)}</strong> · ${duration}</summary>
      ${delivery.requestUrl ? html`<p class="f6 mt-2">${delivery.requestUrl}</p>` : null}
      ${exchange('Request', delivery.requestHeaders, delivery.requestBody ?? delivery.payload)}
      ${exchange('Response', delivery.responseHeaders, delivery.responseBody)}
      ${delivery.error ? html`<p class="flash flash-error f6">${delivery.error}</p>` : null}
    </details>
    <form method="post" action="${action}/${encodeURIComponent(delivery.id)}/redeliver" class="mt-1">
      ${csrfField(context)}
      <button class="btn btn-sm" type="submit" aria-label="Redeliver ${delivery.id}">Redeliver</button>
    </form>
  </li>`;
}

/** `…/settings/hooks/{id}`: one hook's form, its test button, deletion and delivery log. */
export function webhookPage(
  context: PageContext,
  place: HooksPlace,
  hook: Webhook,
  deliveries: readonly Delivery[],
): Html {
  const path = `${place.path}/${hook.wireId}`;
  return html`${hooksHeading(place, 'Webhook')}
    <div class="Box mb-4">
      <div class="Box-header"><h2 class="Box-title">Edit webhook</h2></div>
      <form method="post" action="${path}" class="Box-body">
        ${csrfField(context)}
        ${hookFields(place, hook)}
        <button class="btn btn-primary" type="submit">Update webhook</button>
      </form>
      <div class="Box-footer d-flex flex-items-center kiln-gap-lg">
        ${place.testable ? html`<form method="post" action="${path}/test">${csrfField(context)}<button class="btn" type="submit">Test delivery</button></form>` : null}
        ${confirmedDelete(context, { action: `${path}/delete`, fields: {}, what: 'this webhook and its delivery log', label: 'Delete webhook' })}
      </div>
    </div>
    <div class="Box mb-4" id="deliveries">
      <div class="Box-header"><h2 class="Box-title">Recent deliveries</h2></div>
      ${
        deliveries.length === 0
          ? html`<div class="Box-body">No deliveries yet.</div>`
          : html`<ul>${deliveries.map((delivery) => deliveryItem(context, `${path}/deliveries`, delivery))}</ul>`
      }
    </div>`;
}
