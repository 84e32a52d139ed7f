import { type Kysely, sql } from 'kysely';
import type { Dialect, Migration } from '../migration.ts';

/**
 * How many repositories each user or organisation owns, kept by the database itself: triggers
 * follow every insert, delete (cascades from a deleted owner included) and change of owner, so
 * no code path can forget it. `/user/repos` and `/repos` read their totals here instead of
 * counting index entries, which took time in proportion to the repositories counted.
 */
export const ownerRepoCountsMigration: Migration = {
  name: '0007-owner-repo-counts',
  async up(db: Kysely<unknown>, dialect: Dialect) {
    await db.schema
      .createTable('owner_repo_counts')
      .addColumn('owner_id', 'text', (c) =>
        c.primaryKey().references('users.id').onDelete('cascade'),
      )
      .addColumn('repositories', 'integer', (c) => c.notNull())
      .execute();
    if (dialect === 'postgres') await postgresTriggers(db);
    else await sqliteTriggers(db);
    await sql`insert into owner_repo_counts (owner_id, repositories)
      select owner_id, count(*) from repositories group by owner_id`.execute(db);
  },
};

/** One more for `owner`: the row is made on the owner's first repository. */
const countIn = (owner: string) => `insert into owner_repo_counts (owner_id, repositories)
  values (${owner}, 1)
  on conflict (owner_id) do update set repositories = owner_repo_counts.repositories + 1`;

const countOut = (owner: string) =>
  `update owner_repo_counts set repositories = repositories - 1 where owner_id = ${owner}`;

async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  const triggers = [
    `create trigger repositories_counted_in after insert on repositories
     begin ${countIn('new.owner_id')}; end`,
    `create trigger repositories_counted_out after delete on repositories
     begin ${countOut('old.owner_id')}; end`,
    `create trigger repositories_counted_moved after update of owner_id on repositories
     when old.owner_id <> new.owner_id
     begin ${countOut('old.owner_id')}; ${countIn('new.owner_id')}; end`,
  ];
  for (const trigger of triggers) await sql.raw(trigger).execute(db);
}

async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(`create function repositories_counted() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' and old.owner_id = new.owner_id then
        return null;
      end if;
      if tg_op in ('DELETE', 'UPDATE') then
        ${countOut('old.owner_id')};
      end if;
      if tg_op in ('INSERT', 'UPDATE') then
        ${countIn('new.owner_id')};
      end if;
      return null;
    end $$`)
    .execute(db);
  await sql
    .raw(`create trigger repositories_counted
    after insert or delete or update of owner_id on repositories
    for each row execute function repositories_counted()`)
    .execute(db);
}
