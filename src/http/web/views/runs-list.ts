import type { WorkflowRun, WorkflowRunStatus } from '../../../domain/ci/ci.types.ts';
import { awaitsApproval } from '../../../domain/ci/fork-approval.ts';
import type { Repository } from '../../../domain/repos/repo.types.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import { accountUrl, commitUrl, repoUrl } from '../paths.ts';
import { pager } from './paging.ts';
import { duration, isUnfinished, RUN_STATUSES, statusIcon, statusLabel } from './run-status.ts';
import { relativeTime } from './time.ts';

/** The filters of a runs list, as read from its query string. */
export type RunsQuery = {
  readonly workflow: string | undefined;
  readonly status: WorkflowRunStatus | undefined;
  readonly page: number;
};

/** `/repos/{owner}/{name}/actions/runs/{number}`. */
export function runUrl(repo: Repository, number: number): string {
  return `${repoUrl(repo)}/actions/runs/${number}`;
}

/** The list's URL for other filters or another page; empty values are left out. */
export function runsListUrl(repo: Repository, query: RunsQuery): string {
  const params = new URLSearchParams();
  if (query.workflow !== undefined) params.set('workflow', query.workflow);
  if (query.status !== undefined) params.set('status', query.status.toLowerCase());
  if (query.page > 1) params.set('page', String(query.page));
  const text = params.toString();
  return `${repoUrl(repo)}/actions${text === '' ? '' : `?${text}`}`;
}

/** `refs/heads/main` → `main`; tags and pull refs keep what tells them apart. */
function branchOf(ref: string): string {
  return ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : ref;
}

function runRow(repo: Repository, run: WorkflowRun): Html {
  const started = run.startedAt ?? run.createdAt;
  return html`<li class="Box-row d-flex flex-items-start kiln-gap" data-run="${run.number}">
    <div class="flex-shrink-0 pt-1">${statusIcon(run.status)}</div>
    <div class="flex-auto min-width-0">
      <a class="Link--primary text-bold kiln-break" href="${runUrl(repo, run.number)}">${run.title || run.workflowName}</a>
      <div class="f6 color-fg-muted kiln-break">
        <strong>${run.workflowName}</strong> #${run.number} · ${run.event}
        · ${icon('git-branch')} <code>${branchOf(run.ref)}</code>
        · <a class="Link--muted" href="${commitUrl(repo, run.sha)}"><code>${run.sha.slice(0, 10)}</code></a>
        ${run.actor ? html`· by <a class="Link--muted" href="${accountUrl(run.actor)}">${run.actor}</a>` : null}
        ${awaitsApproval(run) && isUnfinished(run.status) ? html`· <span class="color-fg-attention">needs approval</span>` : null}
      </div>
    </div>
    <div class="flex-shrink-0 text-right f6 color-fg-muted">
      <div>${relativeTime(started)}</div>
      <div>${icon('clock')} ${duration(run.startedAt, run.stoppedAt)}</div>
    </div>
  </li>`;
}

/** The filter form: a plain GET form, so it works without JavaScript. */
function filterForm(
  repo: Repository,
  workflows: readonly { file: string; name: string }[],
  query: RunsQuery,
): Html {
  const workflowOptions = workflows.map(
    (workflow) =>
      html`<option value="${workflow.file}" ${workflow.file === query.workflow ? html`selected` : null}>${workflow.name} (${workflow.file})</option>`,
  );
  const statusOptions = RUN_STATUSES.map(
    (status) =>
      html`<option value="${status.toLowerCase()}" ${status === query.status ? html`selected` : null}>${statusLabel(status)}</option>`,
  );
  return html`<form method="get" action="${repoUrl(repo)}/actions" class="d-flex flex-wrap flex-items-end kiln-gap mb-3" aria-label="Filter runs">
    <label class="d-flex flex-column f6">Workflow
      <select class="form-select select-sm" name="workflow"><option value="">All workflows</option>${workflowOptions}</select>
    </label>
    <label class="d-flex flex-column f6">Status
      <select class="form-select select-sm" name="status"><option value="">Any status</option>${statusOptions}</select>
    </label>
    <button class="btn btn-sm" type="submit">Filter</button>
  </form>`;
}

/** The Actions tab: filters, then the runs newest first, a page at a time. */
export function runsList(view: {
  repo: Repository;
  runs: readonly WorkflowRun[];
  hasMore: boolean;
  workflows: readonly { file: string; name: string }[];
  query: RunsQuery;
}): Html {
  const { repo, runs, query } = view;
  const filtered = query.workflow !== undefined || query.status !== undefined;
  const empty =
    query.page > 1
      ? 'No more runs.'
      : filtered
        ? 'No run matches these filters.'
        : 'There are no workflow runs yet. Push a workflow under .gitea/workflows or .github/workflows to start one.';
  return html`<h2 class="h3 mb-3">Workflow runs</h2>
    ${filterForm(repo, view.workflows, query)}
    ${
      runs.length > 0
        ? html`<ul class="Box kiln-runs" aria-label="Workflow runs">${runs.map((run) => runRow(repo, run))}</ul>`
        : html`<p class="color-fg-muted">${empty}</p>`
    }
    ${pager(query.page, view.hasMore, (page) => runsListUrl(repo, { ...query, page }))}`;
}
