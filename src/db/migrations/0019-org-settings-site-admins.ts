import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Organisation settings and administrators kept in the database.
 * - `website` and `visibility` belong to organisations (people keep '' and 'public'): a private
 *   organisation is shown only to its members and to instance administrators.
 * - `is_admin` makes a person an instance administrator from the admin pages, in addition to
 *   the handles listed in SERVICE_ADMIN_HANDLES, which stay administrators whatever it says.
 */
export const orgSettingsSiteAdminsMigration: Migration = {
  name: '0019-org-settings-site-admins',
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('users')
      .addColumn('website', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    await db.schema
      .alterTable('users')
      .addColumn('visibility', 'text', (c) => c.notNull().defaultTo('public'))
      .execute();
    await db.schema
      .alterTable('users')
      .addColumn('is_admin', 'boolean', (c) => c.notNull().defaultTo(false))
      .execute();
  },
};
