import type { JobStep, JobView, LogTail } from '../../../domain/ci/run-query.service.ts';
import { type Html, html } from '../html.ts';
import { ansiToHtml } from './ansi.ts';
import { duration, statusIcon } from './run-status.ts';

/** One collapsible part of a job's log: a step, or the lines before or after the steps. */
export type LogSection = {
  /** Anchor key: the step index, or `setup` / `complete`. */
  readonly key: string;
  readonly name: string;
  readonly status: string;
  readonly step: JobStep | undefined;
  /** Rows `start` … `end - 1` of the job's log belong to it. */
  readonly start: number;
  readonly end: number;
};

/**
 * Cuts a job's log into sections by its steps' rows (`log_index`, `log_length`). Rows a runner
 * writes before the first step and after the last (setting up and completing the job) get
 * sections of their own, so no row is lost; a job without steps is one section.
 */
export function logSections(job: JobView, total: number): LogSection[] {
  const steps = [...job.steps].sort((a, b) => a.index - b.index);
  if (steps.length === 0) {
    return [{ key: 'log', name: 'Log', status: job.status, step: undefined, start: 0, end: total }];
  }
  const sections: LogSection[] = [];
  const first = Math.min(...steps.map((step) => step.logIndex));
  const last = Math.max(...steps.map((step) => step.logIndex + step.logLength));
  if (first > 0) {
    sections.push({
      key: 'setup',
      name: 'Set up job',
      status: 'success',
      step: undefined,
      start: 0,
      end: first,
    });
  }
  for (const step of steps) {
    sections.push({
      key: String(step.index),
      name: step.name || `Step ${step.index + 1}`,
      status: step.status,
      step,
      start: step.logIndex,
      end: step.logIndex + step.logLength,
    });
  }
  if (total > last) {
    sections.push({
      key: 'complete',
      name: 'Complete job',
      status: job.status,
      step: undefined,
      start: last,
      end: total,
    });
  }
  return sections;
}

/** A stored row is `<RFC 3339 time> <content>`; the page shows the content. */
function contentOf(row: string): string {
  const space = row.indexOf(' ');
  return space === -1 ? row : row.slice(space + 1);
}

function sectionBox(section: LogSection, tail: LogTail): Html {
  const from = Math.max(section.start, tail.from);
  const to = Math.min(section.end, tail.from + tail.rows.length);
  const lines: Html[] = [];
  for (let row = from; row < to; row++) {
    const number = row - section.start + 1;
    const id = `step-${section.key}-L${number}`;
    lines.push(
      html`<tr><td class="kiln-ln" id="${id}"><a href="#${id}">${number}</a></td><td class="kiln-lc">${ansiToHtml(contentOf(tail.rows[row - tail.from] ?? ''))}</td></tr>`,
    );
  }
  const open = section.status === 'failure' || section.status === 'running';
  const step = section.step;
  return html`<details class="Box mb-2 kiln-log-step" id="step-${section.key}" data-step-status="${section.status}" ${open ? html`open` : null}>
    <summary class="Box-header d-flex flex-items-center kiln-gap py-2">
      ${statusIcon(section.status as JobView['status'])}
      <span class="flex-auto text-bold kiln-break">${section.name}</span>
      ${step ? html`<span class="f6 color-fg-muted">${duration(step.startedAt, step.stoppedAt)}</span>` : null}
    </summary>
    ${
      lines.length > 0
        ? html`<div class="kiln-code kiln-log"><table><tbody>${lines}</tbody></table></div>`
        : html`<p class="f6 color-fg-muted px-3 py-2 mb-0">${section.end > section.start ? 'Earlier lines are only in the raw log.' : 'No output.'}</p>`
    }
  </details>`;
}

/**
 * A job's log, step by step, with line anchors (`#step-2-L14`) and ANSI colours as classes.
 * Only the rows of `tail` are shown; when the log is longer a notice points to the raw log.
 */
export function jobLog(job: JobView, tail: LogTail, rawUrl: string): Html {
  const notice =
    tail.from > 0
      ? html`<div class="flash flash-warn mb-3">This log has ${tail.total.toLocaleString('en-US')} lines; the last ${tail.rows.length.toLocaleString('en-US')} are shown. <a href="${rawUrl}">Read the whole raw log</a>.</div>`
      : null;
  const sections = logSections(job, tail.total);
  return html`${notice}${
    tail.total === 0 && job.steps.length === 0
      ? html`<p class="color-fg-muted">No log yet.</p>`
      : sections.map((section) => sectionBox(section, tail))
  }`;
}
