import type { AccessToken } from '../../../domain/tokens/token.service.ts';
import { KILN_SCOPE_CATEGORIES, scopeNames } from '../../../domain/tokens/token-scopes.ts';
import { type Html, html } from '../html.ts';
import type { PageContext } from '../layout.ts';

/** The expiry choices of the form; `custom` takes the date field. */
export const EXPIRY_CHOICES = [
  ['never', 'No expiry'],
  ['7', '7 days'],
  ['30', '30 days'],
  ['90', '90 days'],
  ['custom', 'Custom date'],
] as const;

const DAY_MS = 86_400_000;

/**
 * The expiry the form asks for: none, a number of days from `now`, or the end (UTC) of the
 * custom date. Undefined when the choice or the date cannot be read.
 */
export function expiryFromForm(choice: string, date: string, now: number): Date | null | undefined {
  if (choice === 'never' || choice === '') return null;
  if (choice === '7' || choice === '30' || choice === '90') {
    return new Date(now + Number(choice) * DAY_MS);
  }
  if (choice !== 'custom') return undefined;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]) - 1, Number(match[3])];
  const start = new Date(Date.UTC(year, month, day));
  // Date.UTC rolls 2026-02-31 over into March: such a date was not a date.
  if (start.getUTCMonth() !== month || start.getUTCDate() !== day) return undefined;
  return new Date(start.getTime() + DAY_MS);
}

function when(date: Date | null): string {
  return date ? date.toISOString().slice(0, 16).replace('T', ' ') : 'never';
}

function expiryText(token: AccessToken, now: number): string {
  if (!token.expiresAt) return 'never expires';
  return `${token.expiresAt.getTime() <= now ? 'expired' : 'expires'} ${when(token.expiresAt)}`;
}

function tokenRow(token: AccessToken, now: number): Html {
  return html`<li class="Box-row d-flex flex-items-center">
      <div class="flex-auto">
        <strong>${token.name}</strong> <span class="color-fg-muted kiln-token">…${token.lastEight}</span>
        <div class="f6 color-fg-muted">Scopes: <code>${scopeNames(token.scopes).join(', ')}</code></div>
        <div class="f6 color-fg-muted">Created ${when(token.createdAt)} · last used ${when(token.lastUsedAt)} · ${expiryText(token, now)}</div>
      </div>
      <form method="get" action="/settings/tokens/${token.id}/delete">
        <button class="btn btn-sm btn-danger" type="submit" aria-label="Revoke ${token.name}">Revoke</button>
      </form>
    </li>`;
}

/**
 * One checkbox per level and category Kiln has, and `all`, posted as repeated `scope` fields.
 * A grid of fixed columns, every cell of a column centred like its heading, so each box sits
 * under its level.
 */
function scopeChoices(): Html {
  const rows = KILN_SCOPE_CATEGORIES.map(
    (category) => html`<span class="kiln-scope-name">${category}</span>
      <span class="kiln-scope-box"><input type="checkbox" name="scope" value="read:${category}" aria-label="read:${category}"></span>
      <span class="kiln-scope-box"><input type="checkbox" name="scope" value="write:${category}" aria-label="write:${category}"></span>`,
  );
  return html`<fieldset class="form-group">
      <legend class="text-bold">Scopes</legend>
      <p class="f6 color-fg-muted">Write includes read. Git clone and fetch need read on repository; push needs write.</p>
      <label class="d-block mb-2"><input type="checkbox" name="scope" value="all"> all (everything you may do)</label>
      <div class="kiln-scope-grid f6" role="group" aria-label="Scopes by category">
        <span class="kiln-scope-name text-bold">Category</span><span class="kiln-scope-box text-bold">Read</span><span class="kiln-scope-box text-bold">Write</span>
        ${rows}
      </div>
    </fieldset>`;
}

function expiryChoices(): Html {
  const options = EXPIRY_CHOICES.map(
    ([value, label]) => html`<option value="${value}">${label}</option>`,
  );
  return html`<div class="form-group"><div class="form-group-header"><label for="token-expiry">Expiry</label></div>
      <div class="form-group-body"><select class="form-select" id="token-expiry" name="expiry">${options}</select>
      <label for="token-expires-on" class="ml-2">Custom date</label>
      <input class="form-control" type="date" id="token-expires-on" name="expires_on"></div></div>`;
}

/** The tokens page: a new token once, the form to make one, and the list. */
export function tokensPage(
  context: PageContext,
  tokens: readonly AccessToken[],
  fresh?: { name: string; token: string },
  error?: string,
): Html {
  const now = Date.now();
  const rows = tokens.map((token) => tokenRow(token, now));
  return html`<h1 class="h2 mb-3">Personal access tokens</h1>
    <p class="color-fg-muted">Tokens work for the REST API (<code>Authorization: token …</code>) and for git over HTTP (as the password, or as the username with an empty password), limited to their scopes.</p>
    ${
      fresh
        ? html`<div class="flash flash-success mb-3" role="status">
        <p>New token <strong>${fresh.name}</strong>. Copy it now: it will not be shown again.</p>
        <p class="kiln-token"><code id="new-token">${fresh.token}</code>
        <button type="button" class="btn btn-sm ml-2" data-copy="${fresh.token}" aria-label="Copy token">Copy</button></p>
      </div>`
        : null
    }
    ${error ? html`<div class="flash flash-error mb-3" role="alert">${error}</div>` : null}
    <form method="post" action="/settings/tokens" class="Box p-3 mb-4">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <div class="form-group mt-0"><div class="form-group-header"><label for="token-name">Token name</label></div>
        <div class="form-group-body"><input class="form-control" id="token-name" name="name" required maxlength="100"></div></div>
      ${scopeChoices()}
      ${expiryChoices()}
      <button class="btn btn-primary" type="submit">Generate token</button>
    </form>
    <div class="Box">
      <div class="Box-header"><h2 class="Box-title">Your tokens</h2></div>
      ${tokens.length === 0 ? html`<div class="Box-body color-fg-muted">No tokens yet.</div>` : html`<ul>${rows}</ul>`}
    </div>`;
}

/** The second step of revoking: works without JavaScript, as a page with its own form. */
export function revokePage(context: PageContext, token: AccessToken): Html {
  return html`<h1 class="h2 mb-3">Revoke token ${token.name}?</h1>
    <p>Anything that uses the token ending in <span class="kiln-token">…${token.lastEight}</span> stops working at once. This cannot be undone.</p>
    <form method="post" action="/settings/tokens/${token.id}/delete" class="d-flex flex-items-center">
      <input type="hidden" name="_csrf" value="${context.csrf}"><input type="hidden" name="confirm" value="yes">
      <button class="btn btn-danger mr-2" type="submit">Revoke ${token.name}</button>
      <a class="btn" href="/settings/tokens">Cancel</a>
    </form>`;
}
