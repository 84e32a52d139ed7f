import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

type Grouped = { id: string; concurrency_group: string | null };
/** The two tables as this migration sees them. */
type GroupedTables = { workflow_runs: Grouped; ci_tasks: Grouped };

/**
 * Concurrency group names are case-insensitive (`Deploy` and `deploy` are one group) and kept in
 * lower case from now on. Groups stored as written before would not meet the new runs of the
 * same group, so they are lower-cased too, by JavaScript's rule as new ones are (SQL's `lower`
 * differs between engines beyond ASCII).
 */
export const concurrencyGroupsLowerCaseMigration: Migration = {
  name: '0025-concurrency-groups-lower-case',
  async up(untyped: Kysely<unknown>) {
    const db = untyped.withTables<GroupedTables>();
    for (const table of ['workflow_runs', 'ci_tasks'] as const) {
      const rows = await db
        .selectFrom(table)
        .select(['id', 'concurrency_group'])
        .where('concurrency_group', 'is not', null)
        .execute();
      for (const row of rows) {
        const lower = row.concurrency_group?.toLowerCase();
        if (lower === undefined || lower === row.concurrency_group) continue;
        await db
          .updateTable(table)
          .set({ concurrency_group: lower })
          .where('id', '=', row.id)
          .execute();
      }
    }
  },
};
