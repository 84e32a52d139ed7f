import { parseAnnotationCommand } from '../../../domain/ci/annotations/annotation-command.ts';
import type { JobStep, JobView, LogTail } from '../../../domain/ci/run-query.service.ts';
import { encodedBytes, type Html, html } from '../html.ts';
import { annotationLogLine } from './annotations.ts';
import { ansiToHtml } from './ansi.ts';
import { builtKey, builtPages, sectionTables } from './job-log-kept.ts';
import { cutMark, cutText, pacer, RenderBudget } from './render-budget.ts';
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
 * Where a step's rows end. A runner may report a step's length only when the step ends, so a
 * step still running, or cut short by a cancel, owns the rows from its start up to the next
 * started step (or the end of the log) rather than none.
 */
function stepEnd(step: JobStep, steps: readonly JobStep[], total: number): number {
  const reported = step.logIndex + step.logLength;
  const open = step.status === 'running' || step.status === 'cancelled';
  if (step.logLength > 0 || !open || step.startedAt === null) return reported;
  const next = steps
    .filter((other) => other.startedAt !== null && other.logIndex > step.logIndex)
    .reduce((least, other) => Math.min(least, other.logIndex), total);
  return Math.max(reported, next);
}

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
  const ends = new Map(steps.map((step) => [step.index, stepEnd(step, steps, total)]));
  const first = Math.min(...steps.map((step) => step.logIndex));
  const last = Math.max(...steps.map((step) => ends.get(step.index) ?? 0));
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
      end: ends.get(step.index) ?? step.logIndex + step.logLength,
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

/**
 * Bounds of one page of a log: rows and stored bytes read, HTML bytes built, characters of one
 * line shown. A runner may store rows of 64 KiB, and a row of `<` is four times that escaped:
 * the page is bounded by what it builds, and what is not on it is one link away.
 */
export const LOG_PAGE_LIMITS = {
  rows: 5000,
  readBytes: 2 * 1024 * 1024,
  htmlBytes: 1024 * 1024,
  lineChars: 4096,
} as const;

/** The limits a log page renders within (tests pass smaller ones). */
export type LogPageLimits = { readonly htmlBytes: number; readonly lineChars: number };

/** Where the log's other pages are: `?from=ROW` forwards, `?before=ROW` backwards. */
export type LogLinks = { readonly page: string; readonly raw: string };

/** Which section each row belongs to, walking rows in order. */
function sectionFinder(sections: readonly LogSection[]): (row: number) => LogSection | undefined {
  const ordered = [...sections].sort((a, b) => a.start - b.start);
  return (row) => {
    let found: LogSection | undefined;
    for (const section of ordered) {
      if (section.start > row) break;
      if (row < section.end) found = section;
    }
    return found;
  };
}

/**
 * The rows of `window` that fit in the budget as table rows, by row number: from its start
 * when `newestFirst` is false, else from its end (the page of a log's last lines keeps them).
 */
async function renderRows(
  window: LogTail,
  sectionOf: (row: number) => LogSection | undefined,
  limits: LogPageLimits,
  newestFirst: boolean,
): Promise<{ rows: Map<number, Html>; from: number; to: number }> {
  const budget = new RenderBudget(limits.htmlBytes);
  const pause = pacer();
  const rows = new Map<number, Html>();
  const lines = await window.readRows();
  const count = lines.length;
  let from = newestFirst ? window.from + count : window.from;
  let to = from;
  for (let at = 0; at < count; at++) {
    const index = newestFirst ? count - 1 - at : at;
    const row = window.from + index;
    const section = sectionOf(row);
    const number = row - (section?.start ?? 0) + 1;
    const id = `step-${section?.key ?? 'log'}-L${number}`;
    const content = contentOf(lines[index] ?? '');
    // A workflow command for an annotation reads as what it says, not as the command.
    const command = content.includes('::') ? parseAnnotationCommand(content) : undefined;
    const { text, left } = cutText(command?.message ?? content, limits.lineChars);
    const line = command ? annotationLogLine({ ...command, message: text }) : ansiToHtml(text);
    const markup = html`<tr><td class="kiln-ln" id="${id}"><a href="#${id}">${number}</a></td><td class="kiln-lc">${line}${left > 0 ? cutMark(left, 'raw log') : null}</td></tr>`;
    if (rows.size === 0) budget.spend(markup);
    else if (!budget.take(markup)) break;
    rows.set(row, markup);
    if (newestFirst) from = row;
    else to = row + 1;
    const paused = pause();
    if (paused) await paused;
  }
  return newestFirst ? { rows, from, to: window.from + count } : { rows, from: window.from, to };
}

function sectionBox(section: LogSection, table: Html | undefined, links: LogLinks): Html {
  const open = section.status === 'failure' || section.status === 'running';
  const step = section.step;
  const elsewhere =
    section.end > section.start
      ? html`<p class="f6 color-fg-muted px-3 py-2 mb-0">The lines of this step are on <a href="${links.page}?from=${section.start}">another page</a>.</p>`
      : html`<p class="f6 color-fg-muted px-3 py-2 mb-0">No output.</p>`;
  return html`<details class="Box mb-2 kiln-log-step" id="step-${section.key}" data-step-status="${section.status}" ${open ? html`open` : null}>
    <summary class="Box-header d-flex flex-items-center kiln-gap py-2">
      ${statusIcon(section.status as JobView['status'])}
      <span class="flex-auto text-bold kiln-break">${section.name}</span>
      ${step ? html`<span class="f6 color-fg-muted">${duration(step.startedAt, step.stoppedAt)}</span>` : null}
    </summary>
    ${table ?? elsewhere}
  </details>`;
}

/** Links to the lines before and after the page, and where the page stands in the log. */
function pageNav(shown: { from: number; to: number }, total: number, links: LogLinks): Html | null {
  if (shown.from === 0 && shown.to >= total) return null;
  const count = (n: number) => n.toLocaleString('en-US');
  const older =
    shown.from > 0
      ? html`<a class="btn btn-sm" href="${links.page}?from=0">First lines</a>
        <a class="btn btn-sm" rel="prev" href="${links.page}?before=${shown.from}">Older lines</a>`
      : null;
  const newer =
    shown.to < total
      ? html`<a class="btn btn-sm" rel="next" href="${links.page}?from=${shown.to}">Newer lines</a>
        <a class="btn btn-sm" href="${links.page}">Latest lines</a>`
      : null;
  return html`<nav class="d-flex flex-items-center flex-wrap kiln-gap mb-3 kiln-log-pager" aria-label="Log pages">
    <span class="flex-auto f6 color-fg-muted">Lines ${count(shown.from + 1)}–${count(shown.to)} of ${count(total)}; the whole log is in the <a href="${links.raw}">raw log</a>.</span>
    ${older}${newer}
  </nav>`;
}

/**
 * One page of a job's log, step by step, with line anchors (`#step-2-L14`) and ANSI colours as
 * classes, built in slices of a few milliseconds (`pacer`). Invariant: the rows take at most `limits.htmlBytes` of HTML however long the log or
 * its lines; a line longer than `limits.lineChars` is cut with a mark, and the rows not on the
 * page are reached by links (`?from=`, `?before=`) and in the raw log, streamed whole.
 * `newestFirst` keeps the window's last rows when not all fit (the page of the latest lines).
 * The rows of a window seen before are laid out as kept (`builtPages`), already encoded.
 */
export async function jobLog(
  job: JobView,
  window: LogTail,
  links: LogLinks,
  options: { readonly newestFirst: boolean; readonly limits?: LogPageLimits },
): Promise<Html> {
  if (window.total === 0 && job.steps.length === 0) {
    return html`<p class="color-fg-muted">No log yet.</p>`;
  }
  const sections = logSections(job, window.total);
  const key = options.limits === undefined ? builtKey(job, window, sections, options) : undefined;
  let shown = key === undefined ? undefined : builtPages.get(key);
  if (shown === undefined) {
    const rows = await renderRows(
      window,
      sectionFinder(sections),
      options.limits ?? LOG_PAGE_LIMITS,
      options.newestFirst,
    );
    shown = { from: rows.from, to: rows.to, tables: sectionTables(sections, rows) };
    let bytes = 1024;
    for (const table of shown.tables.values()) bytes += encodedBytes(table);
    if (key !== undefined) builtPages.set(key, shown, bytes);
  }
  const { tables } = shown;
  const nav = pageNav(shown, window.total, links);
  return html`${nav}${sections.map((section) => sectionBox(section, tables.get(section.key), links))}${nav}`;
}
