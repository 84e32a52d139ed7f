import { NotFound } from '../errors.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository } from '../repos/repo.types.ts';
import type { User } from '../users/user.types.ts';
import type { KyselyKvStore } from './kv.store.ts';
import type { OfferPlace, OutgoingPull } from './outgoing-pulls.service.ts';
import { type PullNote, type ReviewNoteState, readNote } from './pull-notes.ts';
import { sameHost } from './remote-repository.ts';

/** A review comment made upstream on a proposal from here, as kept beside the proposal. */
export type ProposalNote = {
  readonly id: string;
  /** `name@host` of who wrote it, and their actor. */
  readonly login: string;
  readonly actor: string;
  /** Markdown, at most 64 KB, as a local review comment. */
  readonly body: string;
  readonly path: string | null;
  readonly line: number | null;
  readonly createdAt: number;
  /** The note this one answers in a thread, when it is a reply (else it is about the pull). */
  readonly inReplyTo?: string | null;
  /** What a review said, on the note of a review's body. */
  readonly reviewState?: ReviewNoteState | null;
};

/** Where a kept note is: the fork and the proposal it is about. */
type NotePlace = OfferPlace;

/** `name@host` of an actor, from its id alone (nothing is fetched for a comment). */
function loginOf(actor: string): string {
  const url = new URL(actor);
  const name = url.pathname.split('/').filter(Boolean).pop() ?? 'someone';
  return `${decodeURIComponent(name).slice(0, 64)}@${url.host}`;
}

/**
 * Review comments the upstream of a proposal sends as `Create{Note}` replying to the pull
 * request (or, in a thread, to a note kept about it), edited by `Update` and taken back by
 * `Delete` of the note. Invariant: a note is kept, changed or removed only when it is about one
 * of our proposals and comes from the upstream that proposal went to, with its id and author on
 * that server; anything else is not ours to keep. A note delivered again replaces itself, never
 * doubles.
 */
export class ProposalNotes {
  readonly #kv: KyselyKvStore;
  readonly #repos: Pick<RepoService, 'require'>;

  constructor(deps: { kv: KyselyKvStore; repos: Pick<RepoService, 'require'> }) {
    this.#kv = deps.kv;
    this.#repos = deps.repos;
  }

  /**
   * Keeps the note a `Create` carries if it is about one of our proposals (it replies to the
   * pull request, or to a note kept about it); whether it was ours to judge.
   */
  async received(sender: string, activity: Record<string, unknown>): Promise<boolean> {
    const note = readNote(activity);
    if (!note) return false;
    const aboutPull = await this.#kv.get<OfferPlace>(['offer-url', note.inReplyTo]);
    const where =
      aboutPull ?? (await this.#kv.get<NotePlace>(['proposal-note-at', note.inReplyTo]));
    if (!where) return false;
    if (!(await this.#fromUpstream(sender, where, note))) return true;
    const earlier = await this.#kv.get<NotePlace>(['proposal-note-at', note.id]);
    // A note id names one note: one already kept about another proposal is not moved.
    if (earlier && (earlier.repoId !== where.repoId || earlier.id !== where.id)) return true;
    await this.#keep(where, note, aboutPull ? null : note.inReplyTo);
    return true;
  }

  /** An `Update` of a note kept here: its new body replaces the old; whether it was ours. */
  async updated(sender: string, activity: Record<string, unknown>): Promise<boolean> {
    const note = readNote(activity);
    if (!note) return false;
    const where = await this.#kv.get<NotePlace>(['proposal-note-at', note.id]);
    if (!where) return false;
    if (!(await this.#fromUpstream(sender, where, note))) return true;
    const kept = await this.#kv.get<ProposalNote>([
      'proposal-note',
      where.repoId,
      where.id,
      note.id,
    ]);
    if (!kept) return true;
    await this.#kv.setFor(
      ['proposal-note', where.repoId, where.id, note.id],
      { ...kept, body: note.content, reviewState: note.reviewState ?? kept.reviewState ?? null },
      null,
    );
    return true;
  }

  /** A `Delete` of a note kept here (by the upstream that sent it): it goes; whether it was ours. */
  async deleted(sender: string, noteId: string): Promise<boolean> {
    const where = await this.#kv.get<NotePlace>(['proposal-note-at', noteId]);
    if (!where) return false;
    const record = await this.#kv.get<OutgoingPull>(['outgoing-pull', where.repoId, where.id]);
    if (record?.upstream !== sender || !sameHost(noteId, sender)) return true;
    await this.#kv.delete(['proposal-note', where.repoId, where.id, noteId]);
    await this.#kv.delete(['proposal-note-at', noteId]);
    return true;
  }

  /** Whether `note` comes from the upstream the proposal at `where` went to, ids on its server. */
  async #fromUpstream(sender: string, where: NotePlace, note: PullNote): Promise<boolean> {
    const record = await this.#kv.get<OutgoingPull>(['outgoing-pull', where.repoId, where.id]);
    if (record?.upstream !== sender) return false;
    return sameHost(note.id, sender) && sameHost(note.attributedTo, sender);
  }

  async #keep(where: NotePlace, note: PullNote, parent: string | null): Promise<void> {
    const kept: ProposalNote = {
      id: note.id,
      login: loginOf(note.attributedTo),
      actor: note.attributedTo,
      body: note.content,
      path: note.anchor?.path ?? null,
      line: note.anchor?.line ?? null,
      createdAt: Date.parse(note.published),
      inReplyTo: parent,
      reviewState: note.reviewState,
    };
    await this.#kv.setFor(['proposal-note', where.repoId, where.id, note.id], kept, null);
    await this.#kv.setFor(['proposal-note-at', note.id], where, null);
  }

  /** The comments on proposal `id` of the fork `owner/name`, oldest first. */
  async list(
    viewer: User | undefined,
    owner: string,
    name: string,
    id: string,
  ): Promise<ProposalNote[]> {
    const { repo } = await this.#repos.require(viewer, owner, name, 'read');
    if (!(await this.#kv.get(['outgoing-pull', repo.id, id]))) {
      throw new NotFound(`no proposal ${id}`);
    }
    return this.notesOf(repo, id);
  }

  /** The comments on proposal `id` of `repo` (whose reader the caller has checked), oldest first. */
  async notesOf(repo: Pick<Repository, 'id'>, id: string): Promise<ProposalNote[]> {
    const notes: ProposalNote[] = [];
    for await (const entry of this.#kv.list(['proposal-note', repo.id, id])) {
      notes.push(entry.value as ProposalNote);
    }
    return notes.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id, 'en'));
  }
}
