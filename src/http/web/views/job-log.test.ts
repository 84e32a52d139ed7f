import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JobView } from '../../../domain/ci/run-query.service.ts';
import { toBytes } from '../html.ts';
import { jobLog, LOG_PAGE_LIMITS } from './job-log.ts';

const stamp = '2026-01-01T00:00:00.000Z ';

let generated = 0;

/** Rows drawn from a few texts, so that pages often coincide. */
const row = fc.constantFrom('a', 'b <&', '\u001b[31mred', '::error::x');

/**
 * A view of a page: a job of one of two ids in one of two attempts, with up to two steps, and a
 * window of its log. As stored, a row never changes within an attempt: each attempt of each job
 * has one log, and windows are slices of it.
 */
const views = fc
  .record({
    logs: fc.array(fc.array(row, { maxLength: 10 }), { minLength: 4, maxLength: 4 }),
    pages: fc.array(
      fc.record({
        id: fc.constantFrom(1, 2),
        attempt: fc.constantFrom(0, 1),
        stepLengths: fc.array(fc.nat(6), { maxLength: 2 }),
        status: fc.constantFrom('running', 'success', 'failure'),
        from: fc.nat(10),
        length: fc.nat(10),
        newestFirst: fc.boolean(),
      }),
      { minLength: 1, maxLength: 12 },
    ),
  })
  .map(({ logs, pages }) => {
    // Jobs of one generated value are jobs of no other: kept pages outlive a run of the
    // property, and two runs' logs for one job would break the rule every kept page relies on.
    generated += 2;
    const jobs = generated;
    return pages.map((page) => {
      const log = logs[(page.id - 1) * 2 + page.attempt] ?? [];
      const from = Math.min(page.from, log.length);
      const rows = log.slice(from, from + page.length);
      let at = 0;
      const steps = page.stepLengths.map((length, index) => {
        const step = {
          index,
          name: `step ${index}`,
          status: page.status,
          startedAt: new Date(1000),
          stoppedAt: null,
          logIndex: at,
          logLength: length,
        };
        at += length;
        return step;
      });
      const job = {
        id: jobs + page.id,
        attempt: page.attempt,
        runId: 1,
        name: 'job',
        status: page.status,
        startedAt: new Date(1000),
        steps,
      } as unknown as JobView;
      // Where the rows lie in the log as stored, one line each.
      const stored = (contents: readonly string[]) =>
        contents.reduce((sum, content) => sum + Buffer.byteLength(`${stamp}${content}\n`), 0);
      const start = stored(log.slice(0, from));
      const window = {
        from,
        total: log.length,
        count: rows.length,
        span: { start, end: start + stored(rows) },
        readRows: async () => rows.map((content) => `${stamp}${content}`),
      };
      return { job, window, newestFirst: page.newestFirst };
    });
  });

const links = { page: '/job', raw: '/job/logs' };

describe('jobLog', () => {
  it('answers a page seen before exactly as it would build it anew (generated)', async () => {
    await fc.assert(
      fc.asyncProperty(views, async (pages) => {
        for (const { job, window, newestFirst } of pages) {
          // Limits given explicitly are never kept: the page as built from nothing.
          const [kept, fresh] = await Promise.all([
            jobLog(job, window, links, { newestFirst }),
            jobLog(job, window, links, { newestFirst, limits: LOG_PAGE_LIMITS }),
          ]);
          expect(toBytes(kept).toString()).toBe(toBytes(fresh).toString());
        }
      }),
      { numRuns: 200 },
    );
  });
});
