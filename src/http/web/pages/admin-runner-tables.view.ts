import type {
  ListedRegistrationToken,
  ListedRunner,
  RunnerStatus,
} from '../../../domain/runners/runner.types.ts';
import { type Html, html } from '../html.ts';
import type { PageContext } from '../layout.ts';

/**
 * The runner and registration-token tables, shared by `/admin/runners` and a repository's CI
 * settings: each page says where its delete forms post.
 */

/** A token just minted, to show once, with the address runners register against. */
export type FreshToken = { readonly token: string; readonly baseUrl: string };

const STATUS_LABEL: Record<RunnerStatus, { text: string; className: string }> = {
  idle: { text: 'Idle', className: 'Label--success' },
  active: { text: 'Active', className: 'Label--accent' },
  offline: { text: 'Offline', className: 'Label--secondary' },
  unspecified: { text: 'Unknown', className: 'Label--secondary' },
};

const CELL = 'p-2 border-top';
const HEAD = 'p-2 text-left f6 color-fg-muted';

/** `2026-01-31 12:34 UTC`, or `never`. */
export function when(date: Date | null): string {
  return date ? `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC` : 'never';
}

export function csrfField(context: PageContext): Html {
  return html`<input type="hidden" name="_csrf" value="${context.csrf}">`;
}

function headings(names: readonly string[]): Html {
  return html`<thead><tr>${names.map((name) => html`<th scope="col" class="${HEAD}">${name}</th>`)}<th scope="col" class="${HEAD}"><span class="sr-only">Actions</span></th></tr></thead>`;
}

function deleteButton(context: PageContext, action: string, label: string): Html {
  return html`<form method="post" action="${action}" data-confirm="${label}? This cannot be undone.">
    ${csrfField(context)}
    <button class="btn btn-sm btn-danger" type="submit" aria-label="${label}">Delete</button>
  </form>`;
}

function scopeCell(runner: ListedRunner | ListedRegistrationToken): Html {
  if (runner.scope.kind === 'instance') return html`Instance`;
  const kind = runner.scope.kind === 'repository' ? 'Repository' : 'Organisation';
  return html`${kind} <code>${runner.scopeLabel}</code>`;
}

/** The job the runner is running, linked to its page (which checks who may see it). */
function taskCell(runner: ListedRunner): Html {
  const task = runner.currentTask;
  if (task === null) return html`<span class="color-fg-muted">none</span>`;
  const repo = `/repos/${encodeURIComponent(task.repoOwner)}/${encodeURIComponent(task.repoName)}`;
  const href = `${repo}/actions/runs/${task.runNumber}/jobs/${task.taskId}`;
  return html`<a class="kiln-runner-task" href="${href}">${task.jobName}</a><div class="f6 color-fg-muted">${task.repoOwner}/${task.repoName} · run #${task.runNumber}</div>`;
}

function runnerRow(context: PageContext, runner: ListedRunner, action: string): Html {
  const status = STATUS_LABEL[runner.status];
  const labels =
    runner.labels.length === 0
      ? html`<span class="color-fg-muted">none</span>`
      : runner.labels.map((label) => html`<span class="Label mr-1">${label}</span>`);
  return html`<tr>
    <td class="${CELL}"><strong>${runner.name}</strong><div class="f6 color-fg-muted"><code>${runner.uuid}</code></div></td>
    <td class="${CELL}">${scopeCell(runner)}</td>
    <td class="${CELL}">${labels}</td>
    <td class="${CELL}">${runner.version || html`<span class="color-fg-muted">unknown</span>`}</td>
    <td class="${CELL}"><span class="Label ${status.className}">${status.text}</span></td>
    <td class="${CELL}">${runner.ephemeral ? 'Yes' : 'No'}</td>
    <td class="${CELL}">${taskCell(runner)}</td>
    <td class="${CELL}">${when(runner.lastSeenAt)}</td>
    <td class="${CELL}">${deleteButton(context, action, `Delete runner ${runner.name}`)}</td>
  </tr>`;
}

/** Runners with name, scope, labels, version, status, ephemeral flag, last seen and delete. */
export function runnersTable(
  context: PageContext,
  runners: readonly ListedRunner[],
  deleteAction: (runner: ListedRunner) => string,
): Html {
  if (runners.length === 0) {
    return html`<div class="Box-body color-fg-muted">No runners have registered yet.</div>`;
  }
  return html`<table class="width-full">
    ${headings(['Name', 'Scope', 'Labels', 'Version', 'Status', 'Ephemeral', 'Task', 'Last seen'])}
    <tbody>${runners.map((runner) => runnerRow(context, runner, deleteAction(runner)))}</tbody>
  </table>`;
}

/** Registration tokens with scope, creator, creation and last use, and delete. */
export function tokensTable(
  context: PageContext,
  tokens: readonly ListedRegistrationToken[],
  deleteAction: (token: ListedRegistrationToken) => string,
): Html {
  if (tokens.length === 0) {
    return html`<div class="Box-body color-fg-muted">No registration tokens.</div>`;
  }
  const rows = tokens.map(
    (token) => html`<tr>
      <td class="${CELL}">${scopeCell(token)}</td>
      <td class="${CELL}">${token.creatorHandle ?? html`<span class="color-fg-muted">command line</span>`}</td>
      <td class="${CELL}">${when(token.createdAt)}</td>
      <td class="${CELL}">${when(token.lastUsedAt)}</td>
      <td class="${CELL}">${deleteButton(context, deleteAction(token), `Delete registration token created ${when(token.createdAt)}`)}</td>
    </tr>`,
  );
  return html`<table class="width-full">
    ${headings(['Scope', 'Created by', 'Created', 'Last used'])}
    <tbody>${rows}</tbody>
  </table>`;
}

/** The new token, once, with the command that registers a runner with it. */
export function freshTokenNotice(fresh: FreshToken, what: string): Html {
  return html`<div class="flash flash-success mb-4" role="status">
    <p>New ${what} registration token. Copy it now: it will not be shown again.</p>
    <p class="kiln-token"><code id="new-token">${fresh.token}</code>
      <button type="button" class="btn btn-sm ml-2" data-copy="${fresh.token}" aria-label="Copy token">Copy</button></p>
    <p class="mb-0">Register a runner with it:</p>
    <pre class="mt-1 kiln-code"><code>act_runner register --no-interactive --instance ${fresh.baseUrl} --token ${fresh.token} --name NAME --labels ubuntu-latest</code></pre>
  </div>`;
}

/** The instance's or one repository's runners and tokens, and where their forms post. */
export type RunnerSections = {
  readonly what: 'instance' | 'repository';
  readonly runners: readonly ListedRunner[];
  readonly tokens: readonly ListedRegistrationToken[];
  readonly fresh?: FreshToken | undefined;
  /** New tokens are posted here; one is deleted at `{tokensPath}/{id}/delete`. */
  readonly tokensPath: string;
  /** A runner is deleted at `{runnersPath}/{id}/delete`. */
  readonly runnersPath: string;
  readonly text: {
    readonly tokensTitle: string;
    readonly tokensNote: Html;
    readonly runnersTitle: string;
    readonly runnersNote?: string;
  };
  /** Whether more follows the runners box, which then keeps its distance. */
  readonly more: boolean;
};

/** A fresh token's notice, the token box with its form, and the runner box. */
export function runnerSections(context: PageContext, data: RunnerSections): Html {
  const { text } = data;
  return html`${data.fresh ? freshTokenNotice(data.fresh, data.what) : null}
    <div class="Box mb-4">
      <div class="Box-header d-flex flex-items-center">
        <h2 class="Box-title flex-auto">${text.tokensTitle}</h2>
        <form method="post" action="${data.tokensPath}">
          ${csrfField(context)}
          <button class="btn btn-sm btn-primary" type="submit">Generate ${data.what} token</button>
        </form>
      </div>
      ${tokensTable(context, data.tokens, (token) => `${data.tokensPath}/${token.id}/delete`)}
      <div class="Box-footer f6 color-fg-muted">${text.tokensNote}</div>
    </div>
    <div class="${data.more ? 'Box mb-4' : 'Box'}">
      <div class="Box-header"><h2 class="Box-title">${text.runnersTitle}</h2></div>
      ${runnersTable(context, data.runners, (runner) => `${data.runnersPath}/${runner.id}/delete`)}
      ${text.runnersNote ? html`<div class="Box-footer f6 color-fg-muted">${text.runnersNote}</div>` : null}
    </div>`;
}

/** What deleting a runner asks first, and says once done; the admin and CI settings pages share it. */
export const RUNNER_DELETION = {
  confirmation: {
    title: 'Delete this runner?',
    consequence: 'Its credentials stop working at once and it takes no more jobs.',
    button: 'Delete runner',
  },
  done: 'Runner deleted. Its credentials no longer work.',
} as const;

/** What deleting a registration token asks first, and says once done. */
export const TOKEN_DELETION = {
  confirmation: {
    title: 'Delete this registration token?',
    consequence: 'No new runner can register with it. Runners it registered keep working.',
    button: 'Delete token',
  },
  done: 'Registration token deleted. Runners it registered keep working.',
} as const;
