import type { JobView, LogTail } from '../../../domain/ci/run-query.service.ts';
import { pureCache } from '../../../lib/pure-caches.ts';
import { SizedLru } from '../../../lib/sized-lru.ts';
import { encoded, type Html, html } from '../html.ts';
import type { LogSection } from './job-log.ts';

/**
 * The shown rows of each section as one table, kept as UTF-8 (`encoded`): a page seen again
 * copies them into its answer instead of joining, escaping and encoding them again.
 */
export function sectionTables(
  sections: readonly LogSection[],
  shown: { rows: ReadonlyMap<number, Html>; from: number; to: number },
): Map<string, Html> {
  const tables = new Map<string, Html>();
  for (const section of sections) {
    const lines: Html[] = [];
    const end = Math.min(section.end, shown.to);
    for (let row = Math.max(section.start, shown.from); row < end; row++) {
      const line = shown.rows.get(row);
      if (line) lines.push(line);
    }
    if (lines.length > 0) {
      tables.set(
        section.key,
        encoded(html`<div class="kiln-code kiln-log"><table><tbody>${lines}</tbody></table></div>`),
      );
    }
  }
  return tables;
}

/** The rows of a page of a log as built: where they start and end, each section's table. */
export type BuiltPage = {
  readonly from: number;
  readonly to: number;
  readonly tables: Map<string, Html>;
};

/**
 * Built rows of log pages, 8 MiB of them at most, the least recently shown forgotten first.
 * Invariant: a stored row never changes within an attempt of its job (logs are only appended
 * to; a re-run removes the log and starts a new attempt), so the rows of a page are a function
 * of the job, its attempt, the window's place (in rows, and in bytes of the stored log) and the
 * sections that number them, which the key holds. A running
 * job's page, reloaded while its log grows, has another window or other sections, so another
 * key.
 */
export const builtPages = pureCache(
  { name: 'job_log_rows', key: 'a job, its log window and step sections', bound: '8 MiB of rows' },
  new SizedLru<string, BuiltPage>(8 * 1024 * 1024),
);

/**
 * What the rows of a page of a log are built from, as a key of `builtPages`: the window's place
 * in rows and in stored bytes stands for its rows (never decoded to make the key, so a page seen
 * before reads none of them).
 */
export function builtKey(
  job: JobView,
  window: LogTail,
  sections: readonly LogSection[],
  options: { readonly newestFirst: boolean },
): string {
  const parts = sections.map((section) => `${section.key}:${section.start}:${section.end}`);
  return [
    job.id,
    job.attempt,
    job.startedAt?.getTime() ?? '',
    window.from,
    window.count,
    window.span.start,
    window.span.end,
    options.newestFirst,
    parts.join(','),
  ].join('|');
}
