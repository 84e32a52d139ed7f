import type { ArtifactView } from '../../../domain/ci/artifacts/artifact-query.service.ts';
import type { WorkflowRun } from '../../../domain/ci/ci.types.ts';
import { awaitsApproval } from '../../../domain/ci/fork-approval.ts';
import type { JobView, RunAnnotation } from '../../../domain/ci/run-query.service.ts';
import type { Repository } from '../../../domain/repos/repo.types.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import type { PageContext } from '../layout.ts';
import { accountUrl, commitUrl, repoUrl } from '../paths.ts';
import { annotationBox } from './annotations.ts';
import { approvalNotice } from './approval-notice.ts';
import { runArtifacts } from './run-artifacts.ts';
import { duration, isUnfinished, statusIcon, statusLabel } from './run-status.ts';
import { runUrl } from './runs-list.ts';
import { relativeTime } from './time.ts';

/** Seconds between reloads of a page about an unfinished run or job. */
const REFRESH_SECONDS = 5;

/**
 * Reloads the page every few seconds while what it shows may still change: no script needed,
 * and it stops by itself once the page is rendered finished.
 */
export function refreshWhile(unfinished: boolean): Html | null {
  return unfinished ? html`<meta http-equiv="refresh" content="${REFRESH_SECONDS}">` : null;
}

/** `/repos/{owner}/{name}/actions/runs/{number}/jobs/{job}`. */
export function jobUrl(repo: Repository, run: WorkflowRun, jobId: number): string {
  return `${runUrl(repo, run.number)}/jobs/${jobId}`;
}

function cancelForm(context: PageContext, repo: Repository, run: WorkflowRun): Html {
  return html`<form method="post" action="${runUrl(repo, run.number)}/cancel">
    <input type="hidden" name="_csrf" value="${context.csrf}">
    <button class="btn btn-sm btn-danger" type="submit">${icon('stop')} Cancel run</button>
  </form>`;
}

/** Re-run buttons of a finished run: all jobs, and only the failed ones when some failed. */
function rerunForms(context: PageContext, repo: Repository, run: WorkflowRun): Html {
  const action = `${runUrl(repo, run.number)}/rerun`;
  const form = (label: string, failedOnly: boolean) =>
    html`<form method="post" action="${action}">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      ${failedOnly ? html`<input type="hidden" name="failed" value="1">` : null}
      <button class="btn btn-sm" type="submit">${icon('sync')} ${label}</button>
    </form>`;
  const failed = run.status === 'FAILURE' || run.status === 'CANCELLED';
  return html`<div class="d-flex kiln-gap">${failed ? form('Re-run failed jobs', true) : null}${form('Re-run all jobs', false)}</div>`;
}

/**
 * The head of the run and job pages: status, title, trigger and the way back; for a run from a
 * fork that waits for approval, the notice (with the button for writers).
 */
export function runHeader(
  context: PageContext,
  view: { repo: Repository; run: WorkflowRun; canCancel: boolean },
): Html {
  const { repo, run } = view;
  const branch = run.ref.replace(/^refs\/heads\//, '');
  return html`<p class="mb-2"><a href="${repoUrl(repo)}/actions">${icon('arrow-left')} All workflow runs</a></p>
    <div class="d-flex flex-items-start kiln-gap mb-3">
      <div class="flex-auto min-width-0">
        <h2 class="h3 kiln-break">${statusIcon(run.status)} ${run.title || run.workflowName}
          <span class="color-fg-muted text-normal">#${run.number}</span></h2>
        <p class="f6 color-fg-muted kiln-break mb-0">
          <strong>${run.workflowName}</strong> (${run.workflowFile}) · ${statusLabel(run.status)} · ${run.event}
          · ${icon('git-branch')} <code>${branch}</code>
          · <a class="Link--muted" href="${commitUrl(repo, run.sha)}"><code>${run.sha.slice(0, 10)}</code></a>
          ${run.actor ? html`· by <a class="Link--muted" href="${accountUrl(run.actor)}">${run.actor}</a>` : null}
          · ${relativeTime(run.createdAt)} · ${icon('clock')} ${duration(run.startedAt, run.stoppedAt)}
        </p>
      </div>
      ${view.canCancel && isUnfinished(run.status) ? cancelForm(context, repo, run) : null}
      ${view.canCancel && !isUnfinished(run.status) && run.error === null ? rerunForms(context, repo, run) : null}
    </div>
    ${run.error ? html`<div class="flash flash-error mb-3" role="alert">${run.error}</div>` : null}
    ${
      awaitsApproval(run) && isUnfinished(run.status)
        ? approvalNotice(context, { repo, run, canApprove: view.canCancel })
        : null
    }`;
}

function jobRow(repo: Repository, run: WorkflowRun, job: JobView): Html {
  return html`<li class="Box-row d-flex flex-items-center kiln-gap" data-job="${job.id}">
    ${statusIcon(job.status)}
    <div class="flex-auto min-width-0">
      <a class="Link--primary text-bold kiln-break" href="${jobUrl(repo, run, job.id)}">${job.name}</a>
      <div class="f6 color-fg-muted">${statusLabel(job.status)}${
        job.needs.length > 0
          ? html` · needs ${job.needs.map((need, at) => html`${at > 0 ? ', ' : ''}<code>${need}</code>`)}`
          : null
      }${
        job.concurrencyQueued && job.status === 'blocked'
          ? html` · waiting for concurrency group <code>${job.concurrencyGroup}</code>`
          : null
      }${job.runnerName ? html` · on ${job.runnerName}` : null}</div>
    </div>
    <span class="f6 color-fg-muted">${icon('clock')} ${duration(job.startedAt, job.stoppedAt)}</span>
  </li>`;
}

/**
 * The run page: its head, who approved it when it came from a fork, then its jobs in workflow
 * order, each linking to its log.
 */
export function runPage(
  context: PageContext,
  view: {
    repo: Repository;
    run: WorkflowRun;
    jobs: readonly JobView[];
    canCancel: boolean;
    /** The handle of whoever approved the run, when it needed approval. */
    approvedBy?: string;
    /** What its jobs' logs annotated. */
    annotations?: readonly RunAnnotation[];
    artifacts?: readonly ArtifactView[];
  },
): Html {
  const { repo, run, jobs } = view;
  return html`${refreshWhile(isUnfinished(run.status))}
    ${runHeader(context, view)}
    ${
      run.approvedAt !== null
        ? html`<p class="f6 color-fg-muted mb-3" data-approved>${icon('shield')} Approved${
            view.approvedBy
              ? html` by <a class="Link--muted" href="${accountUrl(view.approvedBy)}">${view.approvedBy}</a>`
              : null
          } ${relativeTime(run.approvedAt)}</p>`
        : null
    }
    ${
      jobs.length > 0
        ? html`<ul class="Box" aria-label="Jobs">${jobs.map((job) => jobRow(repo, run, job))}</ul>`
        : html`<p class="color-fg-muted">This run has no jobs.</p>`
    }
    ${annotationBox(view.annotations ?? [])}
    ${runArtifacts(repo, view.artifacts ?? [])}`;
}
