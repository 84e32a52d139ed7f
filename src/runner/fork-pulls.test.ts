import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isForkPull } from './fork-pulls.ts';

const repo = fc.record(
  {
    id: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.constant(undefined)),
    full_name: fc.constantFrom('o/a', 'O/A', 'p/a', 'o/b'),
  },
  { requiredKeys: [] },
);
const side = fc.oneof(fc.record({ ref: fc.constant('main'), repo }), fc.constant({ repo: null }));
const pullEvents = fc.constantFrom('pull_request', 'pull_request_target', 'pull_request_review');

/** What a runner must conclude from the payload: the same repository on both sides, or not. */
function sameRepository(head: unknown, base: unknown): boolean {
  const h = (head as { repo?: { id?: number; full_name?: string } | null }).repo;
  const b = (base as { repo?: { id?: number; full_name?: string } | null }).repo;
  if (!h || !b) return false;
  if (h.id !== undefined && b.id !== undefined) return h.id === b.id;
  if (h.id !== undefined || b.id !== undefined) return false;
  if (h.full_name === undefined || b.full_name === undefined) return false;
  return h.full_name.toLowerCase() === b.full_name.toLowerCase();
}

describe('isForkPull', () => {
  it('lets through only pulls whose head and base are told to be one repository', () => {
    fc.assert(
      fc.property(pullEvents, side, side, (name, head, base) => {
        const context = { event_name: name, event: { pull_request: { head, base } } };
        expect(isForkPull(context)).toBe(!sameRepository(head, base));
      }),
    );
  });

  it('counts a pull event without a pull request as a fork, and other events as none', () => {
    fc.assert(
      fc.property(pullEvents, fc.constantFrom({}, { action: 'opened' }), (name, event) => {
        expect(isForkPull({ event_name: name, event })).toBe(true);
      }),
    );
    for (const name of ['push', 'schedule', 'workflow_dispatch', 'issue_comment']) {
      expect(isForkPull({ event_name: name, event: { ref: 'refs/heads/main' } })).toBe(false);
    }
  });

  it('tells a pull inside the repository from one of a fork as Gitea sends them', () => {
    const base = { ref: 'main', repo: { id: 7, full_name: 'org/app' } };
    const inside = { event_name: 'pull_request', event: { pull_request: { head: base, base } } };
    const fork = { ref: 'patch', repo: { id: 9, full_name: 'someone/app' } };
    const fromFork = { event_name: 'pull_request', event: { pull_request: { head: fork, base } } };
    expect(isForkPull(inside)).toBe(false);
    expect(isForkPull(fromFork)).toBe(true);
  });
});
