import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReviewComment } from './review-comment.types.ts';
import { lineOf, reviewThreads, threadOf } from './review-threads.ts';

/** A comment on one of a few files, sides and lines, so threads really form. */
const comment = (n: number, path: string, side: 'LEFT' | 'RIGHT', line: number): ReviewComment => ({
  id: `c${n}`,
  pullId: 'p',
  authorId: 'a',
  body: `comment ${n}`,
  path,
  side,
  line: side === 'RIGHT' ? line : null,
  oldLine: side === 'LEFT' ? line : null,
  commitId: 'x',
  originalCommitId: 'x',
  diffHunk: '',
  inReplyToId: null,
  reviewId: null,
  createdAt: new Date(n),
  updatedAt: new Date(n),
  resolvedById: n % 3 === 0 ? 'resolver' : null,
  resolvedAt: n % 3 === 0 ? new Date(n) : null,
});

const comments = fc
  .array(
    fc.tuple(
      fc.constantFrom('a.txt', 'b/c.txt'),
      fc.constantFrom('LEFT' as const, 'RIGHT' as const),
      fc.integer({ min: 1, max: 4 }),
    ),
    { maxLength: 40 },
  )
  .map((anchors) => anchors.map(([path, side, line], n) => comment(n, path, side, line)));

describe('review threads', () => {
  it('puts every comment in exactly one thread of its own line, in order', () => {
    fc.assert(
      fc.property(comments, (all) => {
        const threads = reviewThreads(all);
        const seen = threads.flatMap((thread) => thread.comments.map((c) => c.id));
        expect([...seen].sort()).toEqual(all.map((c) => c.id).sort());
        const starts = threads.map((thread) => all.indexOf(thread.first));
        expect(starts).toEqual([...starts].sort((a, b) => a - b));
        for (const thread of threads) {
          expect(thread.comments[0]).toBe(thread.first);
          for (const c of thread.comments) {
            expect([c.path, c.side, lineOf(c)]).toEqual([
              thread.first.path,
              thread.first.side,
              lineOf(thread.first),
            ]);
          }
          expect(thread.resolved !== undefined).toBe(thread.first.resolvedById !== null);
          expect(threadOf(all, thread.comments.at(-1) ?? thread.first)?.first).toBe(thread.first);
        }
      }),
    );
  });

  it('keeps the old and new sides of the same line number apart', () => {
    const threads = reviewThreads([
      comment(1, 'a.txt', 'LEFT', 2),
      comment(2, 'a.txt', 'RIGHT', 2),
    ]);
    expect(threads).toHaveLength(2);
  });
});
