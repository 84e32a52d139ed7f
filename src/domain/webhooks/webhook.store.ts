import type { Selectable } from 'kysely';
import { NO_CHANGE_CLOCK, TableChangeClock } from '../../db/change-clock.ts';
import type { Db } from '../../db/database.ts';
import type { WebhooksTable } from '../../db/tables.ts';
import { NotFound } from '../errors.ts';
import type { HookEvent, HookOwner, HookType, Webhook } from './webhook.types.ts';

type Row = Selectable<WebhooksTable>;

/** The row of a hook, sealed secret included (only the sender opens it). */
export type StoredHook = { readonly hook: Webhook; readonly row: Row };

function ownerOf(row: Pick<Row, 'owner_kind' | 'owner_id'>): HookOwner {
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

/** How one attempt went, for its hook's count of failures in a row. */
export type HookOutcome = { readonly hookId: string; readonly outcome: { succeeded: boolean } };

/**
 * Queries on `webhooks`. This store is the only writer of the table, so its change clock
 * (`stamp`) moves on every write to it and on other processes' commits, and readers keep what
 * they read while the rest of the database changes.
 */
export class WebhookStore {
  readonly #db: Db;
  readonly #changes: TableChangeClock;

  constructor(db: Db, changes: TableChangeClock = new TableChangeClock(NO_CHANGE_CLOCK)) {
    this.#db = db;
    this.#changes = changes;
  }

  /** What was read from `webhooks` at one stamp may be reused while it stays the same. */
  stamp(): number | undefined {
    return this.#changes.stamp();
  }

  async insert(row: WebhooksTable): Promise<Webhook> {
    try {
      await this.#db.insertInto('webhooks').values(row).execute();
    } finally {
      this.#changes.noteWrite();
    }
    return toHook(row);
  }

  async update(id: string, changes: Partial<WebhooksTable>): Promise<void> {
    try {
      await this.#db.updateTable('webhooks').set(changes).where('id', '=', id).execute();
    } finally {
      this.#changes.noteWrite();
    }
  }

  async delete(id: string): Promise<void> {
    try {
      await this.#db.transaction().execute(async (trx) => {
        await trx.deleteFrom('webhook_deliveries').where('hook_id', '=', id).execute();
        await trx.deleteFrom('webhooks').where('id', '=', id).execute();
      });
    } finally {
      this.#changes.noteWrite();
    }
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

  /**
   * The owners (`kind:id`) having at least one active hook: one short list the notifier asks
   * before building any payload.
   */
  async activeOwners(): Promise<Set<string>> {
    const rows = await this.#db
      .selectFrom('webhooks')
      .select(['owner_kind', 'owner_id'])
      .distinct()
      .where('active', '=', true)
      .execute();
    return new Set(rows.map((row) => ownerKey(ownerOf(row))));
  }

  /**
   * Counts the failures in a row of the hooks of `outcomes` (in the order they finished): a
   * success starts the count again, and a hook that reaches `limit` (0: never) is switched off.
   * Runs on `db`, which may be the transaction recording the attempts themselves.
   */
  async countOutcomes(
    outcomes: readonly HookOutcome[],
    limit: number,
    now: number,
    db: Db = this.#db,
  ): Promise<void> {
    const tally = new Map<string, { restarted: boolean; failures: number }>();
    for (const { hookId, outcome } of outcomes) {
      const entry = tally.get(hookId) ?? { restarted: false, failures: 0 };
      if (outcome.succeeded) tally.set(hookId, { restarted: true, failures: 0 });
      else tally.set(hookId, { ...entry, failures: entry.failures + 1 });
    }
    let changed = false;
    for (const [id, { restarted, failures }] of tally) {
      let count = db
        .updateTable('webhooks')
        .set((eb) => ({
          consecutive_failures: restarted ? failures : eb('consecutive_failures', '+', failures),
        }))
        .where('id', '=', id);
      // A hook that keeps succeeding is not written at all.
      if (restarted) count = count.where('consecutive_failures', '<>', failures);
      const counted = await count.executeTakeFirst();
      changed ||= counted.numUpdatedRows > 0n;
      if (failures === 0 || limit <= 0) continue;
      await db
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
    if (changed) this.#changes.noteWrite();
  }
}

/** The key of an owner in `activeOwners`. */
export function ownerKey(owner: HookOwner): string {
  return `${owner.kind}:${owner.id}`;
}
