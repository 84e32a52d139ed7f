import type { FederationDb } from './federation.tables.ts';

/** A note sent to a remote proposer: the local comment or review it carries, and where it went. */
export type SentNote = {
  /** `comment:<id>` or `review:<id>`. */
  readonly source: string;
  readonly pullId: string;
  readonly noteId: string;
  /** The proposer's actor, the only one the note (and its edits) goes to. */
  readonly recipient: string;
};

/** The notes sent to remote proposers (migration `0043-federation-sent-notes`). */
export class SentNotesStore {
  readonly #db: FederationDb;

  constructor(db: FederationDb) {
    this.#db = db;
  }

  /**
   * Records `note` as sent unless its source was already: whether this call recorded it. One
   * statement, so two reactions to the same comment (or two replicas) cannot both send it.
   */
  async claim(note: SentNote): Promise<boolean> {
    const inserted = await this.#db
      .insertInto('federation_sent_notes')
      .values({
        source: note.source,
        pull_id: note.pullId,
        note_id: note.noteId,
        recipient: note.recipient,
        created_at: Date.now(),
      })
      .onConflict((c) => c.doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  /** The note a source went out as, if it did. */
  async find(source: string): Promise<SentNote | undefined> {
    const row = await this.#db
      .selectFrom('federation_sent_notes')
      .select(['source', 'pull_id', 'note_id', 'recipient'])
      .where('source', '=', source)
      .executeTakeFirst();
    return (
      row && {
        source: row.source,
        pullId: row.pull_id,
        noteId: row.note_id,
        recipient: row.recipient,
      }
    );
  }

  /** Forgets a source (its note was deleted); whether there was one. */
  async forget(source: string): Promise<boolean> {
    const deleted = await this.#db
      .deleteFrom('federation_sent_notes')
      .where('source', '=', source)
      .executeTakeFirst();
    return Number(deleted.numDeletedRows) > 0;
  }
}
