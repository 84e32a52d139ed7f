import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PullReview } from './pull-review.types.ts';
import { countedVerdicts } from './review-verdicts.ts';

const review = (n: number, over: Partial<PullReview>): PullReview => ({
  id: `r${n}`,
  pullId: 'p',
  reviewerId: 'a',
  state: 'APPROVED',
  body: '',
  commitId: 'head',
  official: true,
  dismissed: false,
  dismissedById: null,
  dismissMessage: null,
  createdAt: new Date(n),
  updatedAt: new Date(n),
  submittedAt: new Date(n),
  ...over,
});

describe('counted verdicts', () => {
  it('counts each reviewer once, by their latest approval or rejection', () => {
    const counted = countedVerdicts(
      [
        review(1, { reviewerId: 'a', state: 'REQUEST_CHANGES' }),
        review(2, { reviewerId: 'a', state: 'APPROVED' }),
        review(3, { reviewerId: 'a', state: 'COMMENT' }),
        review(4, { reviewerId: 'b', state: 'APPROVED' }),
        review(5, { reviewerId: 'b', state: 'REQUEST_CHANGES' }),
      ],
      { headSha: 'head', ignoreStale: false },
    );
    expect(counted).toEqual({ approvedBy: ['a'], rejectedBy: ['b'] });
  });

  it('leaves out unofficial, dismissed and (when asked) stale approvals', () => {
    const reviews = [
      review(1, { reviewerId: 'a', official: false }),
      review(2, { reviewerId: 'b', dismissed: true }),
      review(3, { reviewerId: 'c', commitId: 'older' }),
    ];
    expect(countedVerdicts(reviews, { headSha: 'head', ignoreStale: true }).approvedBy).toEqual([]);
    expect(countedVerdicts(reviews, { headSha: 'head', ignoreStale: false }).approvedBy).toEqual([
      'c',
    ]);
  });

  it('never counts more approvals than reviewers, nor one reviewer on both sides', () => {
    const arbitrary = fc.array(
      fc.record({
        reviewerId: fc.constantFrom('a', 'b', 'c'),
        state: fc.constantFrom('APPROVED', 'REQUEST_CHANGES', 'COMMENT', 'PENDING') as fc.Arbitrary<
          PullReview['state']
        >,
        official: fc.boolean(),
        dismissed: fc.boolean(),
      }),
      { maxLength: 20 },
    );
    fc.assert(
      fc.property(arbitrary, (specs) => {
        const counted = countedVerdicts(
          specs.map((spec, n) => review(n, spec)),
          { headSha: 'head', ignoreStale: false },
        );
        const both = counted.approvedBy.filter((id) => counted.rejectedBy.includes(id));
        expect(both).toEqual([]);
        expect(new Set(counted.approvedBy).size).toBe(counted.approvedBy.length);
      }),
    );
  });
});
