import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

export const repositoriesMigration: Migration = {
  name: '0002-repositories',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('repositories')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('name_lower', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('private', 'boolean', (c) => c.notNull())
      .addColumn('parent_id', 'text', (c) => c.references('repositories.id').onDelete('set null'))
      .addColumn('pull_counter', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('repositories_owner_name', ['owner_id', 'name_lower'])
      .execute();
    await db.schema
      .createIndex('repositories_parent')
      .on('repositories')
      .column('parent_id')
      .execute();
    await db.schema
      .createIndex('repositories_private_updated')
      .on('repositories')
      .columns(['private', 'updated_at'])
      .execute();

    await db.schema
      .createTable('collaborators')
      .addColumn('repo_id', 'text', (c) =>
        c.notNull().references('repositories.id').onDelete('cascade'),
      )
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('permission', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('collaborators_pk', ['repo_id', 'user_id'])
      .execute();
    await db.schema
      .createIndex('collaborators_user')
      .on('collaborators')
      .column('user_id')
      .execute();

    await db.schema
      .createTable('protected_branches')
      .addColumn('repo_id', 'text', (c) =>
        c.notNull().references('repositories.id').onDelete('cascade'),
      )
      .addColumn('branch', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('protected_branches_pk', ['repo_id', 'branch'])
      .execute();
  },
};
