import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JobView } from '../../../domain/ci/run-query.service.ts';
import type { Diff, DiffFile } from '../../../git/diff.ts';
import { toBytes } from '../html.ts';
import { type DiffRenderLimits, diffFiles, prepareDiff } from './diff.ts';
import { jobLog, type LogPageLimits } from './job-log.ts';

/** Text of random shape: characters that grow when escaped, multi-byte ones, pairs, plain. */
const pieces = fc.constantFrom('<', '&', '"', 'a', 'é', '€', '😀', '…', ' ', 'x', '\u001b[31m');
const text = (max: number) => fc.array(pieces, { maxLength: max }).map((parts) => parts.join(''));

/** Every table row a page holds, in order. */
function rowsOf(markup: string): string[] {
  return [...markup.matchAll(/<tr[^>]*>.*?<\/tr>/gs)].map((match) => match[0]);
}

const bytes = (rows: readonly string[]) =>
  rows.reduce((sum, row) => sum + Buffer.byteLength(row, 'utf8'), 0);

const diffLimits = fc.record<DiffRenderLimits>({
  lineChars: fc.integer({ min: 1, max: 40 }),
  fileLines: fc.integer({ min: 1, max: 30 }),
  fileBytes: fc.integer({ min: 200, max: 6000 }),
  totalBytes: fc.integer({ min: 200, max: 12_000 }),
});

const diffFile = (lineChars: number) =>
  fc
    .array(
      fc.tuple(fc.constantFrom(' ', '+', '-'), text(lineChars * 2 + 4)).map(([m, t]) => m + t),
      { minLength: 1, maxLength: 25 },
    )
    .map(
      (lines): DiffFile => ({
        status: 'modified',
        oldPath: 'f<&>.txt',
        newPath: 'f<&>.txt',
        oldMode: '100644',
        newMode: '100644',
        oldSha: 'a'.repeat(40),
        newSha: 'b'.repeat(40),
        similarity: undefined,
        additions: lines.length,
        deletions: 0,
        binary: false,
        hunks: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, section: '', lines }],
        truncated: false,
      }),
    );

describe('diffFiles', () => {
  it('never renders more than its bounds, and marks everything it leaves out', async () => {
    await fc.assert(
      fc.asyncProperty(
        diffLimits,
        fc.array(diffFile(20), { minLength: 1, maxLength: 6 }),
        async (limits, files) => {
          const diff: Diff = {
            fromSha: 'a'.repeat(40),
            toSha: 'b'.repeat(40),
            files,
            totalFiles: files.length,
            totalAdditions: 0,
            totalDeletions: 0,
            truncated: false,
          };
          const prepared = await prepareDiff(diff, limits);
          const links = { view: () => undefined, load: () => '/load', raw: '/raw' };
          const markup = toBytes(diffFiles(prepared, links)).toString('utf8');
          expect(bytes(rowsOf(markup))).toBeLessThanOrEqual(limits.totalBytes);
          const sections = markup.split('<section').slice(1);
          expect(sections).toHaveLength(files.length);
          sections.forEach((section, index) => {
            const file = files[index] as DiffFile;
            const rows = rowsOf(section);
            expect(bytes(rows)).toBeLessThanOrEqual(limits.fileBytes);
            expect(rows.length).toBeLessThanOrEqual(limits.fileLines);
            const lines = file.hunks[0]?.lines ?? [];
            // Every line left out of a file is announced with a link to the rest.
            if (rows.length < lines.length + 1) expect(section).toContain('href="/load"');
            // Every line shown cut carries a mark saying how much it left out.
            rows.slice(1).forEach((row, at) => {
              const length = (lines[at] ?? '').length - 1;
              const cut = /data-cut="(\d+)"/.exec(row);
              if (length > limits.lineChars) expect(Number(cut?.[1])).toBeGreaterThan(0);
              else expect(cut).toBeNull();
            });
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});

const job: JobView = {
  id: 1,
  runId: 1,
  name: 'job',
  status: 'success',
  steps: [],
  needs: [],
} as unknown as JobView;

describe('jobLog', () => {
  it('never renders more than its bound, keeps rows contiguous and links what it leaves out', async () => {
    // As in use, one row cut to `lineChars` (at most 8 bytes a character escaped, and a span
    // for each colour) is smaller than the page's bound.
    const limits = fc.integer({ min: 1, max: 40 }).chain((lineChars) =>
      fc.record<LogPageLimits>({
        htmlBytes: fc.integer({ min: lineChars * 16 + 600, max: 8000 }),
        lineChars: fc.constant(lineChars),
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        limits,
        fc.array(text(60), { minLength: 1, maxLength: 40 }),
        fc.nat(50),
        fc.boolean(),
        async (limits, contents, before, newestFirst) => {
          const rows = contents.map((content) => `2026-01-01T00:00:00.000Z ${content}`);
          const total = before + rows.length + (newestFirst ? 0 : 7);
          // Limits given explicitly: never kept, so the span is never read.
          const span = { start: 0, end: bytes(rows) };
          const window = {
            from: before,
            total,
            count: rows.length,
            span,
            readRows: async () => rows,
          };
          const links = { page: '/job', raw: '/job/logs' };
          // As sent: the rows are kept encoded, standing in the markup's text as tokens.
          const markup = toBytes(
            await jobLog(job, window, links, { newestFirst, limits }),
          ).toString();
          const shown = rowsOf(markup);
          expect(bytes(shown)).toBeLessThanOrEqual(limits.htmlBytes);
          const numbers = shown.map((row) => Number(/-L(\d+)"/.exec(row)?.[1]));
          numbers.forEach((n, at) => {
            if (at > 0) expect(n).toBe((numbers[at - 1] ?? 0) + 1);
          });
          const first = (numbers[0] ?? before + 1) - 1;
          const end = first + shown.length;
          if (newestFirst && shown.length > 0) expect(end).toBe(before + rows.length);
          if (first > 0) expect(markup).toContain(`href="/job?before=${first}"`);
          if (end < total) expect(markup).toContain(`href="/job?from=${end}"`);
          shown.forEach((row, at) => {
            const content = contents[first - before + at] ?? '';
            const cut = /data-cut="(\d+)"/.exec(row);
            if (content.length > limits.lineChars) expect(Number(cut?.[1])).toBeGreaterThan(0);
            else expect(cut).toBeNull();
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});
