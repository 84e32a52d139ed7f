import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Organisation-wide CI secrets and variables (Gitea's `/orgs/{org}/actions/secrets|variables`):
 * every job of the organisation's repositories receives them, a repository's own of the same
 * name taking precedence. Secret values are sealed as the repository ones are.
 */
export const ciOrgSettingsMigration: Migration = {
  name: '0018-ci-org-settings',
  async up(db: Kysely<unknown>) {
    // One shape for both: `value` is sealed (`v1:…`, as `ci_secrets.encrypted_value`) for secrets.
    for (const table of ['ci_org_secrets', 'ci_org_variables']) {
      await db.schema
        .createTable(table)
        .addColumn('org_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint(`${table}_pk`, ['org_id', 'name'])
        .execute();
    }
  },
};
