import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  offerActivity,
  type PullOffer,
  readOffer,
  readUpdate,
  splitPatches,
  updateActivity,
} from './pull-offers.ts';

const url = fc.webUrl({ withFragments: false, withQueryParameters: false });
const branch = fc.stringMatching(/^[a-z][a-z0-9._/-]{0,30}$/);
const offerArb: fc.Arbitrary<PullOffer> = fc.record({
  id: url,
  actor: url,
  title: fc.string({ minLength: 1, maxLength: 80 }),
  body: fc.string({ maxLength: 200 }),
  origin: fc.record({ repo: url, branch }),
  target: fc.record({ repo: url, branch }),
  patches: fc.array(fc.string({ maxLength: 100 }), { maxLength: 4 }),
});

describe('pull offers', () => {
  it('reads back every update of a ticket it writes', () => {
    const updateArb = fc.record({
      id: url,
      actor: url,
      ticket: url,
      origin: fc.record({ repo: url, branch }),
      target: fc.record({ repo: url, branch }),
      patches: fc.array(fc.string({ maxLength: 100 }), { maxLength: 4 }),
    });
    fc.assert(
      fc.property(updateArb, (update) => {
        const activity = JSON.parse(JSON.stringify(updateActivity(update))) as Record<
          string,
          unknown
        >;
        expect(activity).toMatchObject({ type: 'Update', object: { type: 'Ticket' } });
        expect(readUpdate(activity)).toEqual(update);
      }),
    );
  });

  it('reads back every offer it writes', () => {
    fc.assert(
      fc.property(offerArb, (offer) => {
        const activity = JSON.parse(JSON.stringify(offerActivity(offer))) as Record<
          string,
          unknown
        >;
        expect(readOffer(activity)).toEqual(offer);
      }),
    );
  });

  it('has the shape of the ForgeFed draft: Offer of a Ticket carrying Branches and Patches', () => {
    const activity = offerActivity({
      id: 'https://a.example/activities/1',
      actor: 'https://a.example/bob',
      title: 'Fix',
      body: 'Body',
      origin: { repo: 'https://a.example/repos/bob/kiln', branch: 'fix' },
      target: { repo: 'https://b.example/repos/ada/kiln', branch: 'main' },
      patches: ['From 1\n'],
    });
    expect(activity).toMatchObject({
      type: 'Offer',
      target: 'https://b.example/repos/ada/kiln',
      object: {
        type: 'Ticket',
        attributedTo: 'https://a.example/bob',
        attachment: {
          type: 'Offer',
          origin: {
            type: 'Branch',
            context: 'https://a.example/repos/bob/kiln',
            ref: 'refs/heads/fix',
          },
          target: {
            type: 'Branch',
            context: 'https://b.example/repos/ada/kiln',
            ref: 'refs/heads/main',
          },
          object: {
            type: 'OrderedCollection',
            totalItems: 1,
            orderedItems: [{ type: 'Patch', mediaType: 'application/x-git-patch' }],
          },
        },
      },
    });
  });

  it('never throws on hostile JSON: an offer, or the reason it is none', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (object, attachment) => {
        const activity = {
          id: 'https://x.example/1',
          type: 'Offer',
          actor: 'https://x.example/a',
          object,
        };
        const withAttachment = { ...activity, object: { type: 'Ticket', attachment } };
        for (const candidate of [activity, withAttachment]) {
          const read = readOffer(candidate);
          if (typeof read !== 'string') {
            expect(read.origin.branch.length).toBeGreaterThan(0);
            expect(read.target.branch.length).toBeGreaterThan(0);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('splits format-patch output into one patch per commit', () => {
    const one = (sha: string) => `From ${sha} Mon Sep 17 00:00:00 2001\nSubject: x\n\n---\n`;
    const shas = ['a'.repeat(40), 'b'.repeat(40)];
    expect(splitPatches(shas.map(one).join(''))).toEqual(shas.map(one));
    expect(splitPatches('')).toEqual([]);
  });
});
