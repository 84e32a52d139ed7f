import type { CacheEntry } from '../../../domain/ci/cache/cache.types.ts';
import type { CiSecretInfo } from '../../../domain/ci/ci-secret.service.ts';
import type { CiVariable } from '../../../domain/ci/ci-variable.service.ts';
import type {
  ListedRegistrationToken,
  ListedRunner,
} from '../../../domain/runners/runner.types.ts';
import { type Html, html } from '../html.ts';
import type { PageContext } from '../layout.ts';
import { csrfField, type FreshToken, runnerSections, when } from './admin-runner-tables.view.ts';
import { cachesBox } from './ci-caches.view.ts';

export type CiSettingsData = {
  readonly owner: string;
  readonly name: string;
  /** `/repos/{owner}/{name}/settings/ci`. */
  readonly path: string;
  readonly runners: readonly ListedRunner[];
  readonly tokens: readonly ListedRegistrationToken[];
  readonly secrets: readonly CiSecretInfo[];
  readonly variables: readonly CiVariable[];
  /** The most recently used cache entries, and how many there are. */
  readonly caches: readonly CacheEntry[];
  readonly cacheCount: number;
  /** False when SERVICE_SECRET_KEY is unset: secrets can be neither created nor delivered. */
  readonly secretsEnabled: boolean;
  readonly fresh?: FreshToken | undefined;
  readonly error?: string | undefined;
};

const CELL = 'p-2 border-top';

function deleteForm(context: PageContext, action: string, label: string): Html {
  return html`<form method="post" action="${action}" data-confirm="${label}? This cannot be undone.">${csrfField(context)}<button class="btn btn-sm btn-danger" type="submit" aria-label="${label}">Delete</button></form>`;
}

/** The name/value form shared by secrets and variables. */
function putForm(context: PageContext, action: string, kind: 'secret' | 'variable'): Html {
  return html`<form method="post" action="${action}" class="Box-body">
    ${csrfField(context)}
    <div class="form-group mt-0"><div class="form-group-header"><label for="${kind}-name">Name</label></div>
      <div class="form-group-body"><input class="form-control" id="${kind}-name" name="name" required maxlength="255" pattern="[A-Za-z_][A-Za-z0-9_]*" autocomplete="off"></div></div>
    <div class="form-group"><div class="form-group-header"><label for="${kind}-value">Value</label></div>
      <div class="form-group-body"><textarea class="form-control" id="${kind}-value" name="value" rows="3" autocomplete="off"></textarea></div></div>
    <button class="btn btn-primary" type="submit">Save ${kind}</button>
  </form>`;
}

function secretsBox(context: PageContext, data: CiSettingsData): Html {
  const rows = data.secrets.map(
    (secret) => html`<tr>
      <td class="${CELL}"><code>${secret.name}</code></td>
      <td class="${CELL}">${when(secret.updatedAt)}</td>
      <td class="${CELL}">${deleteForm(context, `${data.path}/secrets/${encodeURIComponent(secret.name)}/delete`, `Delete secret ${secret.name}`)}</td>
    </tr>`,
  );
  return html`<div class="Box mb-4">
    <div class="Box-header"><h2 class="Box-title">Secrets</h2></div>
    <div class="Box-body f6 color-fg-muted">Encrypted at rest and sent only to the runner that takes a job. Values are never shown again; saving a name that exists replaces its value.</div>
    ${data.secrets.length === 0 ? null : html`<table class="width-full"><tbody>${rows}</tbody></table>`}
    ${
      data.secretsEnabled
        ? putForm(context, `${data.path}/secrets`, 'secret')
        : html`<div class="Box-body flash flash-warn m-0">Secrets are unavailable: the server has no <code>SERVICE_SECRET_KEY</code>.</div>`
    }
  </div>`;
}

function variablesBox(context: PageContext, data: CiSettingsData): Html {
  const rows = data.variables.map(
    (variable) => html`<tr>
      <td class="${CELL}"><code>${variable.name}</code></td>
      <td class="${CELL} kiln-token">${variable.value}</td>
      <td class="${CELL}">${deleteForm(context, `${data.path}/variables/${encodeURIComponent(variable.name)}/delete`, `Delete variable ${variable.name}`)}</td>
    </tr>`,
  );
  return html`<div class="Box mb-4">
    <div class="Box-header"><h2 class="Box-title">Variables</h2></div>
    <div class="Box-body f6 color-fg-muted">Plain values every job of this repository can read as <code>vars.NAME</code>.</div>
    ${data.variables.length === 0 ? null : html`<table class="width-full"><tbody>${rows}</tbody></table>`}
    ${putForm(context, `${data.path}/variables`, 'variable')}
  </div>`;
}

/** `/repos/{owner}/{name}/settings/ci`: the repository's runners, tokens, secrets, variables. */
export function ciSettingsPage(context: PageContext, data: CiSettingsData): Html {
  return html`<nav aria-label="Breadcrumb" class="f4 mb-2"><a href="/${data.owner}">${data.owner}</a> / <a href="/repos/${data.owner}/${data.name}">${data.name}</a> / settings</nav>
    <h1 class="h2 mb-3">CI</h1>
    ${data.error ? html`<div class="flash flash-error mb-3" role="alert">${data.error}</div>` : null}
    ${runnerSections(context, {
      what: 'repository',
      runners: data.runners,
      tokens: data.tokens,
      fresh: data.fresh,
      tokensPath: `${data.path}/tokens`,
      runnersPath: `${data.path}/runners`,
      text: {
        tokensTitle: 'Runner registration tokens',
        tokensNote: html`A runner registered with a repository token runs only this repository's jobs: those whose <code>runs-on</code> matches one of its labels.`,
        runnersTitle: 'Repository runners',
      },
      more: true,
    })}
    ${secretsBox(context, data)}
    ${variablesBox(context, data)}
    ${cachesBox(context, { path: data.path, caches: data.caches, total: data.cacheCount })}`;
}
