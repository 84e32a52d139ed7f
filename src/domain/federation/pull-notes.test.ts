import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createNoteActivity,
  deleteNoteActivity,
  MAX_NOTE_BYTES,
  noteActivity,
  type PullNote,
  REVIEW_NOTE_STATES,
  readNote,
} from './pull-notes.ts';

const url = fc.webUrl({ withFragments: false, withQueryParameters: false });
const noteArb: fc.Arbitrary<PullNote> = fc.record({
  id: url,
  attributedTo: url,
  inReplyTo: url,
  content: fc.string({ minLength: 1, maxLength: 200 }).filter((text) => text.trim() !== ''),
  anchor: fc.option(
    fc.record({
      path: fc.stringMatching(/^[a-z][a-z0-9._/-]{0,40}$/),
      line: fc.option(fc.integer({ min: 1, max: 100_000 }), { nil: null }),
    }),
    { nil: null },
  ),
  published: fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
  reviewState: fc.option(fc.constantFrom(...REVIEW_NOTE_STATES), { nil: null }),
});
/** The activity carrying `note`, as another server reads it off the wire. */
const sent = (note: PullNote) =>
  JSON.parse(
    JSON.stringify(
      createNoteActivity('https://x.example/a', 'https://x.example/r', 'https://y.example/p', note),
    ),
  ) as Record<string, unknown>;

describe('review comments as notes', () => {
  it('reads back every note it writes', () => {
    fc.assert(
      fc.property(noteArb, (note) => {
        const activity = sent(note);
        expect(readNote(activity)).toEqual(note);
      }),
    );
  });

  it('takes no note larger than a local comment, empty, or without what it replies to', () => {
    fc.assert(
      fc.property(
        noteArb,
        fc.constantFrom('big', 'blank', 'no-reply', 'bad-line'),
        (note, flaw) => {
          const activity = sent(note);
          const object = activity.object as Record<string, unknown>;
          if (flaw === 'big') object.content = 'x'.repeat(MAX_NOTE_BYTES + 1);
          if (flaw === 'blank') object.content = '  \n';
          if (flaw === 'no-reply') delete object.inReplyTo;
          if (flaw === 'bad-line') object.context = { path: 'a', line: -3 };
          const read = readNote(activity);
          if (flaw === 'bad-line') expect(read?.anchor).toEqual({ path: 'a', line: null });
          else expect(read).toBeUndefined();
        },
      ),
    );
  });
});

describe('note authors', () => {
  it('are web addresses only: a page links to them', () => {
    for (const attributedTo of [
      'javascript://forge.example/x',
      'data:text/html,hi',
      'ftp://forge.example/a',
    ]) {
      const activity = {
        type: 'Create',
        object: {
          type: 'Note',
          id: 'https://forge.example/n/1',
          attributedTo,
          inReplyTo: 'https://forge.example/p/1',
          content: 'hi',
        },
      };
      expect(readNote(activity)).toBeUndefined();
    }
  });
});

describe('what a remote note says of itself', () => {
  it('an edit reads back as the note it updates; an unknown review state is none', () => {
    fc.assert(
      fc.property(noteArb, fc.anything(), (note, state) => {
        const activity = JSON.parse(
          JSON.stringify(
            noteActivity(
              'Update',
              'https://x.example/u',
              'https://x.example/r',
              'https://y.example/p',
              note,
            ),
          ),
        ) as Record<string, unknown>;
        expect(activity.type).toBe('Update');
        expect(readNote(activity)).toEqual(note);
        (activity.object as Record<string, unknown>).reviewState = state;
        const known = REVIEW_NOTE_STATES.find((one) => one === state) ?? null;
        expect(readNote(activity)?.reviewState).toBe(known);
      }),
    );
  });

  it('replies only to web addresses, of bounded length', () => {
    fc.assert(
      fc.property(
        noteArb,
        fc.oneof(
          fc.string(),
          fc.constantFrom(
            'javascript:alert(1)',
            'data:,x',
            `https://x.example/${'a'.repeat(2100)}`,
          ),
          fc.anything(),
        ),
        (note, inReplyTo) => {
          const activity = sent(note);
          (activity.object as Record<string, unknown>).inReplyTo = inReplyTo;
          const read = readNote(activity);
          if (read) {
            expect(/^https?:/.test(new URL(read.inReplyTo).protocol)).toBe(true);
            expect(read.inReplyTo.length).toBeLessThanOrEqual(2048);
          }
        },
      ),
    );
  });

  it('a deletion names the note as a tombstone', () => {
    const activity = deleteNoteActivity(
      'https://x.example/d',
      'https://x.example/r',
      'https://y.example/p',
      'https://x.example/n',
    );
    expect(activity.object).toEqual({
      id: 'https://x.example/n',
      type: 'Tombstone',
      formerType: 'Note',
    });
    expect(activity.to).toEqual(['https://y.example/p']);
  });
});
