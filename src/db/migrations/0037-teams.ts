import { type Kysely, sql } from 'kysely';
import { foldId, newId } from '../../lib/ids.ts';
import type { Migration } from '../migration.ts';

/**
 * Teams of organisations, as Gitea has them: a team gives its members `read`, `write` or
 * `admin` over every repository of its organisation (`includes_all_repositories`) or over the
 * ones listed in `team_repos`. Each organisation has one team named Owners with the `owner`
 * permission; its members are the organisation's owners, which `org_members.role` already
 * records, so `team_members` never holds rows for it: the migration creates the Owners team of
 * every existing organisation and its owners are its members from then on. `wire_id` is the
 * folded id clients address a team by.
 */
export const teamsMigration: Migration = {
  name: '0037-teams',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('teams')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('wire_id', 'bigint', (c) => c.notNull().unique())
      .addColumn('org_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('name_lower', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('permission', 'text', (c) => c.notNull())
      .addColumn('includes_all_repositories', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('can_create_org_repo', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('teams_org_name')
      .on('teams')
      .columns(['org_id', 'name_lower'])
      .unique()
      .execute();

    await db.schema
      .createTable('team_members')
      .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('team_members_pk', ['team_id', 'user_id'])
      .execute();
    await db.schema.createIndex('team_members_user').on('team_members').column('user_id').execute();

    await db.schema
      .createTable('team_repos')
      .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
      .addColumn('repo_id', 'text', (c) =>
        c.notNull().references('repositories.id').onDelete('cascade'),
      )
      .addPrimaryKeyConstraint('team_repos_pk', ['team_id', 'repo_id'])
      .execute();
    await db.schema.createIndex('team_repos_repo').on('team_repos').column('repo_id').execute();

    const { rows } = await sql<{ id: string; created_at: number | string }>`
      select id, created_at from users where kind = 'org'`.execute(db);
    for (const org of rows) {
      const id = newId();
      await sql`
        insert into teams (id, wire_id, org_id, name, name_lower, description, permission,
                           includes_all_repositories, can_create_org_repo, created_at)
        values (${id}, ${foldId(id)}, ${org.id}, 'Owners', 'owners', '', 'owner',
                true, true, ${Number(org.created_at)})`.execute(db);
    }
  },
};
