import { isRecord } from '../../lib/narrow.ts';
import { ACTOR_CONTEXT } from './forgefed-context.ts';
import { idOf } from './remote-actors.ts';

/**
 * Review comments on a pull request proposed from another server, as ActivityStreams `Note`s:
 * `inReplyTo` the pull request (its page, the ticket's id), `context` the line of the diff it is
 * about (`path`, `line`) when it is a line comment. Pure functions of their inputs.
 */

/** A comment's body is bounded as a local review comment's is. */
export const MAX_NOTE_BYTES = 65_536;

/** Where in the diff a note is, when it is about a line. */
export type NoteAnchor = { readonly path: string; readonly line: number | null };

/**
 * What a review said, carried by the note of its body as `reviewState` (a Kiln term beside
 * ActivityStreams': ForgeFed names no review verdicts; servers that do not know it ignore it).
 */
export const REVIEW_NOTE_STATES = ['approved', 'changes_requested', 'commented'] as const;
export type ReviewNoteState = (typeof REVIEW_NOTE_STATES)[number];

/** One review comment (or a review's body), as a note carries it. */
export type PullNote = {
  readonly id: string;
  /** The person who wrote it. */
  readonly attributedTo: string;
  /** The pull request it is about (its page upstream). */
  readonly inReplyTo: string;
  readonly content: string;
  readonly anchor: NoteAnchor | null;
  readonly published: string;
  /** Set on the note of a review's body: what the review said. */
  readonly reviewState: ReviewNoteState | null;
};

/** `Create` of the note, by `actor` (the repository upstream, or the proposer), to `to`. */
export function createNoteActivity(id: string, actor: string, to: string, note: PullNote) {
  return noteActivity('Create', id, actor, to, note);
}

/** `Create` or `Update` (an edited comment: the same note id, its new content) of the note. */
export function noteActivity(
  type: 'Create' | 'Update',
  id: string,
  actor: string,
  to: string,
  note: PullNote,
) {
  return {
    '@context': ACTOR_CONTEXT,
    id,
    type,
    actor,
    to: [to],
    object: {
      id: note.id,
      type: 'Note',
      attributedTo: note.attributedTo,
      inReplyTo: note.inReplyTo,
      mediaType: 'text/markdown',
      content: note.content,
      published: note.published,
      ...(note.reviewState ? { reviewState: note.reviewState } : {}),
      ...(note.anchor
        ? {
            context: {
              type: 'Object',
              name:
                note.anchor.line === null
                  ? note.anchor.path
                  : `${note.anchor.path}:${note.anchor.line}`,
              path: note.anchor.path,
              line: note.anchor.line,
            },
          }
        : {}),
    },
  };
}

/** `Delete` of a note sent earlier (a deleted comment), as a `Tombstone` of it. */
export function deleteNoteActivity(id: string, actor: string, to: string, noteId: string) {
  return {
    '@context': ACTOR_CONTEXT,
    id,
    type: 'Delete',
    actor,
    to: [to],
    object: { id: noteId, type: 'Tombstone', formerType: 'Note' },
  };
}

/** An http(s) address: what a page may link to. */
function isWebUrl(value: string): boolean {
  return URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
}

function readAnchor(value: unknown): NoteAnchor | null {
  if (!isRecord(value) || typeof value.path !== 'string') return null;
  if (value.path === '' || value.path.length > 4096) return null;
  const line =
    typeof value.line === 'number' && Number.isSafeInteger(value.line) && value.line > 0
      ? value.line
      : null;
  return { path: value.path, line };
}

/**
 * The note a `Create{Note}` or `Update{Note}` replying to something carries, or undefined when
 * it is not one (an id or author that is no web address, no reply, empty or oversized content).
 */
export function readNote(activity: Record<string, unknown>): PullNote | undefined {
  const note = activity.object;
  if (!isRecord(note) || note.type !== 'Note') return undefined;
  const id = idOf(note);
  const attributedTo = idOf(note.attributedTo);
  const inReplyTo = idOf(note.inReplyTo);
  const content = typeof note.content === 'string' ? note.content : undefined;
  if (!id || !attributedTo || !inReplyTo || content === undefined) return undefined;
  if (id.length > 2048 || !isWebUrl(id) || !isWebUrl(attributedTo)) return undefined;
  if (inReplyTo.length > 2048 || !isWebUrl(inReplyTo)) return undefined;
  if (content.trim() === '') return undefined;
  if (Buffer.byteLength(content, 'utf8') > MAX_NOTE_BYTES) return undefined;
  const published =
    typeof note.published === 'string' && !Number.isNaN(Date.parse(note.published))
      ? new Date(note.published).toISOString()
      : new Date().toISOString();
  const reviewState = REVIEW_NOTE_STATES.find((state) => state === note.reviewState) ?? null;
  return {
    id,
    attributedTo,
    inReplyTo,
    content,
    anchor: readAnchor(note.context),
    published,
    reviewState,
  };
}
