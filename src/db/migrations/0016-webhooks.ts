import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Webhooks and their deliveries. A hook belongs to one repository, one organisation, or the
 * whole instance (`owner_kind`). Its secret is sealed with the instance secret key, never stored
 * in plaintext; `wire_id` is the folded id clients address it by. `webhook_deliveries` is the
 * durable queue and the log at once: a replica claims a row by moving its `lease_until` forward
 * with a conditional update, so each delivery is attempted by one process at a time, and a row
 * whose holder died is claimed again once its lease has run out.
 */
export const webhooksMigration: Migration = {
  name: '0016-webhooks',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('webhooks')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('wire_id', 'bigint', (c) => c.notNull().unique())
      .addColumn('owner_kind', 'text', (c) => c.notNull())
      .addColumn('owner_id', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('content_type', 'text', (c) => c.notNull())
      .addColumn('http_method', 'text', (c) => c.notNull())
      .addColumn('sealed_secret', 'text')
      .addColumn('sealed_authorization', 'text')
      .addColumn('events', 'text', (c) => c.notNull())
      .addColumn('branch_filter', 'text', (c) => c.notNull())
      .addColumn('active', 'boolean', (c) => c.notNull())
      .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('disabled_reason', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('webhooks_owner')
      .on('webhooks')
      .columns(['owner_kind', 'owner_id'])
      .execute();
    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('hook_id', 'text', (c) => c.notNull())
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('event_type', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
      .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('request_url', 'text')
      .addColumn('request_headers', 'text')
      .addColumn('request_body', 'text')
      .addColumn('response_status', 'integer')
      .addColumn('response_headers', 'text')
      .addColumn('response_body', 'text')
      .addColumn('error', 'text')
      .addColumn('duration_ms', 'integer')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('delivered_at', 'bigint')
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_due')
      .on('webhook_deliveries')
      .columns(['state', 'next_attempt_at'])
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_hook')
      .on('webhook_deliveries')
      .columns(['hook_id', 'created_at'])
      .execute();
  },
};
