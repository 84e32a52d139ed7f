import { NotFound } from '../errors.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository } from '../repos/repo.types.ts';
import type { User } from '../users/user.types.ts';
import type { KyselyKvStore } from './kv.store.ts';
import type { OfferPlace, OutgoingPull } from './outgoing-pulls.service.ts';
import { readNote } from './pull-notes.ts';
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
};

/** `name@host` of an actor, from its id alone (nothing is fetched for a comment). */
function loginOf(actor: string): string {
  const url = new URL(actor);
  const name = url.pathname.split('/').filter(Boolean).pop() ?? 'someone';
  return `${decodeURIComponent(name).slice(0, 64)}@${url.host}`;
}

/**
 * Review comments the upstream of a proposal sends as `Create{Note}` replying to the pull
 * request. Invariant: a note is kept only when it replies to the page of one of our proposals
 * and comes from the upstream that proposal went to, with its id and author on that server;
 * anything else is not ours to keep. A note delivered again replaces itself, never doubles.
 */
export class ProposalNotes {
  readonly #kv: KyselyKvStore;
  readonly #repos: Pick<RepoService, 'require'>;

  constructor(deps: { kv: KyselyKvStore; repos: Pick<RepoService, 'require'> }) {
    this.#kv = deps.kv;
    this.#repos = deps.repos;
  }

  /** Keeps the note `activity` carries if it is about one of our proposals; whether it was. */
  async received(sender: string, activity: Record<string, unknown>): Promise<boolean> {
    const note = readNote(activity);
    if (!note) return false;
    const where = await this.#kv.get<OfferPlace>(['offer-url', note.inReplyTo]);
    if (!where) return false;
    const record = await this.#kv.get<OutgoingPull>(['outgoing-pull', where.repoId, where.id]);
    if (record?.upstream !== sender) return true;
    if (!sameHost(note.id, sender) || !sameHost(note.attributedTo, sender)) return true;
    const kept: ProposalNote = {
      id: note.id,
      login: loginOf(note.attributedTo),
      actor: note.attributedTo,
      body: note.content,
      path: note.anchor?.path ?? null,
      line: note.anchor?.line ?? null,
      createdAt: Date.parse(note.published),
    };
    await this.#kv.setFor(['proposal-note', where.repoId, where.id, note.id], kept, null);
    return true;
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
