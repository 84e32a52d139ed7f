import { sql } from 'kysely';
import type { Database } from './database.ts';
import { CHANGES_CHANNEL } from './postgres-change-clock.ts';

/** Kysely's own bookkeeping: migrations are not data a reader remembers. */
const UNWATCHED = ['kiln_migrations', 'kiln_migrations_lock'];

/** Any fixed number: replicas starting together take turns installing the triggers. */
const INSTALL_LOCK = 7_301_114;

/**
 * PostgreSQL: every table of Kiln's schema announces each committed write on `CHANGES_CHANNEL`,
 * with a statement trigger (one notification per statement, and PostgreSQL folds identical ones
 * within a transaction). Run after every migration, so a table a later migration adds is
 * watched too; idempotent, and safe with several replicas migrating at once.
 */
export async function ensureChangeNotices(database: Database): Promise<void> {
  if (database.dialect !== 'postgres') return;
  await database.db.transaction().execute(async (tx) => {
    await sql`select pg_advisory_xact_lock(${INSTALL_LOCK})`.execute(tx);
    await sql
      .raw(`create or replace function kiln_note_change() returns trigger language plpgsql as $$
        begin perform pg_notify('${CHANGES_CHANNEL}', ''); return null; end $$`)
      .execute(tx);
    const unwatched = await sql<{ name: string }>`
      select c.relname as name from pg_class c
      join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
      where c.relkind in ('r', 'p')
        and not exists (
          select 1 from pg_trigger t where t.tgrelid = c.oid and t.tgname = 'kiln_changes')`.execute(
      tx,
    );
    for (const { name } of unwatched.rows) {
      if (UNWATCHED.includes(name)) continue;
      await sql`create trigger kiln_changes
        after insert or update or delete or truncate on ${sql.table(name)}
        for each statement execute function kiln_note_change()`.execute(tx);
    }
  });
}
