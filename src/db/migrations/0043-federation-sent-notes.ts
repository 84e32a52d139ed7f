import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * The notes sent to the proposers of pulls proposed from other servers: which local comment or
 * review (`source`, `comment:<id>` or `review:<id>`) went out as which note (`note_id`), to
 * whom (`recipient`, the proposer's actor), about which pull. The primary key is the source, so
 * a comment goes out once whatever reacts to it twice; edits and deletions of it follow as an
 * `Update` or `Delete` of the same note; a reply in a thread names its parent's note. Gone with
 * the pull.
 */
export const federationSentNotesMigration: Migration = {
  name: '0043-federation-sent-notes',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('federation_sent_notes')
      .addColumn('source', 'text', (c) => c.primaryKey())
      .addColumn('pull_id', 'text', (c) =>
        c.notNull().references('pull_requests.id').onDelete('cascade'),
      )
      .addColumn('note_id', 'text', (c) => c.notNull().unique())
      .addColumn('recipient', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
