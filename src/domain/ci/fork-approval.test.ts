import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACCESS_LEVELS, atLeast } from '../repos/repo.types.ts';
import { awaitsApproval, mustAskApproval, type Standing } from './fork-approval.ts';

const standing: fc.Arbitrary<Standing> = fc.record({
  access: fc.constantFrom(...ACCESS_LEVELS),
  approved: fc.boolean(),
});

const trusted = (person: Standing) => atLeast(person.access, 'write') || person.approved;

describe('mustAskApproval', () => {
  it('asks for a fork run unless both its actor and the pull’s author are trusted', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.boolean(),
        standing,
        standing,
        fc.boolean(),
        (fromFork, byBot, actor, author, merged) => {
          const asks = mustAskApproval({ fromFork, byBot, actor, author, merged });
          const writerMerge = merged && atLeast(actor.access, 'write');
          const vouched = trusted(actor) && (writerMerge || trusted(author));
          expect(asks).toBe(fromFork && !byBot && !vouched);
        },
      ),
    );
  });

  it('asks, unless a writer merges, when the head’s pusher is not trusted', () => {
    fc.assert(
      fc.property(standing, standing, standing, fc.boolean(), (actor, author, pusher, merged) => {
        const asks = mustAskApproval({
          fromFork: true,
          byBot: false,
          actor,
          author,
          headPusher: pusher,
          merged,
        });
        const writerMerge = merged && atLeast(actor.access, 'write');
        const vouched = trusted(actor) && (writerMerge || (trusted(author) && trusted(pusher)));
        expect(asks).toBe(!vouched);
      }),
    );
  });

  it('asks when a writer closes or reopens a stranger’s pull, not when a writer merges it', () => {
    const writer = { access: 'write', approved: false } as const;
    const stranger = { access: 'none', approved: false } as const;
    const facts = { fromFork: true, byBot: false, actor: writer, author: stranger };
    expect(mustAskApproval({ ...facts, merged: false })).toBe(true);
    expect(mustAskApproval({ ...facts, merged: true })).toBe(false);
    expect(mustAskApproval({ ...facts, actor: stranger, merged: true })).toBe(true);
  });
});

describe('awaitsApproval', () => {
  it('holds from the run needing approval until it is approved', () => {
    expect(awaitsApproval({ needsApproval: false, approvedAt: null })).toBe(false);
    expect(awaitsApproval({ needsApproval: true, approvedAt: null })).toBe(true);
    expect(awaitsApproval({ needsApproval: true, approvedAt: new Date(1) })).toBe(false);
  });
});
