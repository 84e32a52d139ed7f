import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { WebhooksTable } from '../../db/tables.ts';
import { NotFound } from '../errors.ts';
import type { HookEvent, HookOwner, HookType, Webhook } from './webhook.types.ts';

type Row = Selectable<WebhooksTable>;

/** The row of a hook, sealed secret included (only the sender opens it). */
export type StoredHook = { readonly hook: Webhook; readonly row: Row };

function ownerOf(row: Row): HookOwner {
  if (row.owner_kind === 'system') return { kind: 'system', id: '' };
  return { kind: row.owner_kind, id: row.owner_id };
}

function toHook(row: Row): Webhook {
  return {
    id: row.id,
    wireId: Number(row.wire_id),
    owner: ownerOf(row),
    type: row.type as HookType,
    url: row.url,
    contentType: row.content_type,
    httpMethod: row.http_method === 'GET' ? 'GET' : 'POST',
    hasSecret: row.sealed_secret !== null,
    events: JSON.parse(row.events) as HookEvent[],
    branchFilter: row.branch_filter,
    active: Boolean(row.active),
    consecutiveFailures: Number(row.consecutive_failures),
    disabledReason: row.disabled_reason,
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
  };
}

/** Queries on `webhooks`. */
export class WebhookStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async insert(row: WebhooksTable): Promise<Webhook> {
    await this.#db.insertInto('webhooks').values(row).execute();
    return toHook(row);
  }

  async update(id: string, changes: Partial<WebhooksTable>): Promise<void> {
    await this.#db.updateTable('webhooks').set(changes).where('id', '=', id).execute();
  }

  async delete(id: string): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      await trx.deleteFrom('webhook_deliveries').where('hook_id', '=', id).execute();
      await trx.deleteFrom('webhooks').where('id', '=', id).execute();
    });
  }

  async list(owner: HookOwner): Promise<Webhook[]> {
    const rows = await this.#db
      .selectFrom('webhooks')
      .selectAll()
      .where('owner_kind', '=', owner.kind)
      .where('owner_id', '=', owner.id)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toHook);
  }

  /** The hook `wireId` of `owner`; NotFound for any other owner's hook, as Gitea does. */
  async get(owner: HookOwner, wireId: number): Promise<StoredHook> {
    const row = await this.#db
      .selectFrom('webhooks')
      .selectAll()
      .where('wire_id', '=', wireId)
      .where('owner_kind', '=', owner.kind)
      .where('owner_id', '=', owner.id)
      .executeTakeFirst();
    if (!row) throw new NotFound(`hook does not exist [id: ${wireId}]`);
    return { hook: toHook(row), row };
  }

  async findById(id: string): Promise<StoredHook | undefined> {
    const row = await this.#db
      .selectFrom('webhooks')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? { hook: toHook(row), row } : undefined;
  }

  /** Active hooks of any of `owners`: the candidates for one event. */
  async activeFor(owners: readonly HookOwner[]): Promise<Webhook[]> {
    if (owners.length === 0) return [];
    const rows = await this.#db
      .selectFrom('webhooks')
      .selectAll()
      .where('active', '=', true)
      .where((eb) =>
        eb.or(
          owners.map((owner) =>
            eb.and([eb('owner_kind', '=', owner.kind), eb('owner_id', '=', owner.id)]),
          ),
        ),
      )
      .execute();
    return rows.map(toHook);
  }

  /** Counts a failure; switches the hook off once `limit` failures came in a row (0: never). */
  async recordFailure(id: string, limit: number, now: number): Promise<void> {
    await this.#db
      .updateTable('webhooks')
      .set((eb) => ({ consecutive_failures: eb('consecutive_failures', '+', 1) }))
      .where('id', '=', id)
      .execute();
    if (limit <= 0) return;
    await this.#db
      .updateTable('webhooks')
      .set({
        active: false,
        disabled_reason: `switched off after ${limit} failed deliveries in a row`,
        updated_at: now,
      })
      .where('id', '=', id)
      .where('active', '=', true)
      .where('consecutive_failures', '>=', limit)
      .execute();
  }

  async recordSuccess(id: string): Promise<void> {
    await this.#db
      .updateTable('webhooks')
      .set({ consecutive_failures: 0 })
      .where('id', '=', id)
      .where('consecutive_failures', '>', 0)
      .execute();
  }
}
