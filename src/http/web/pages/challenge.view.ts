import type { CaptchaProvider } from '../../protect/captcha.ts';
import { type Html, html } from '../html.ts';

/** How long a pass lasts, in words ("24 hours", "30 minutes"). */
export function lifetimeInWords(ms: number): string {
  const minutes = Math.max(1, Math.round(ms / 60_000));
  if (minutes % 1440 === 0) return plural(minutes / 1440, 'day');
  if (minutes % 60 === 0) return plural(minutes / 60, 'hour');
  return plural(minutes, 'minute');
}

function plural(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

/**
 * The challenge page: the provider's widget inside a plain form that posts the solved widget and
 * the page to come back to. The widget script is the only external script on the site.
 */
export function challengePage(input: {
  provider: CaptchaProvider;
  siteKey: string;
  redirect: string;
  lifetime: string;
  error?: string | undefined;
}): Html {
  const { provider } = input;
  return html`<div class="col-md-8 mx-auto">
    <h1 class="h2 mb-2">Are you human?</h1>
    <p class="color-fg-muted">Pages like commits, history and search are costly to build, so each address may only ask for a few of them in a short time. Solve the check below to get a larger allowance for ${input.lifetime}, or <a href="/login?redirect=${encodeURIComponent(input.redirect)}">sign in</a>.</p>
    ${input.error ? html`<div class="flash flash-error mb-3" role="alert">${input.error}</div>` : null}
    <form method="post" action="/challenge" class="Box p-3">
      <input type="hidden" name="redirect" value="${input.redirect}">
      <div class="${provider.widgetClass} mb-3" data-sitekey="${input.siteKey}"></div>
      <noscript><p class="color-fg-attention">The check needs JavaScript. Without it, wait a minute and try again, or sign in.</p></noscript>
      <button class="btn btn-primary" type="submit">Continue</button>
    </form>
    <script src="${provider.scriptUrl}" async defer></script>
  </div>`;
}
