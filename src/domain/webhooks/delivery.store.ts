import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { LeaseQueue, type LeaseQueueShape } from '../../db/lease-queue.ts';
import type { Dialect } from '../../db/migration.ts';
import type { Tables, WebhookDeliveriesTable } from '../../db/tables.ts';
import type { Delivery } from './webhook.types.ts';

type Row = Selectable<WebhookDeliveriesTable>;

/** Queued rows are the work; `record` frees the lease (0) with each attempt. */
const DELIVERY_QUEUE: LeaseQueueShape<Tables, 'webhook_deliveries'> = {
  table: 'webhook_deliveries',
  key: 'id',
  lease: 'lease_until',
  freeLease: 0,
  due: 'next_attempt_at',
  claimable: (eb) => eb('state', '=', 'queued'),
};

/** A delivery as the worker holds it while sending. */
export type ClaimedDelivery = {
  readonly id: string;
  readonly hookId: string;
  readonly event: string;
  readonly eventType: string;
  readonly payload: string;
  readonly attempts: number;
};

/** What one attempt produced, recorded on its row. */
export type AttemptRecord = {
  readonly requestUrl: string;
  readonly requestHeaders: Record<string, string>;
  readonly requestBody: string;
  readonly responseStatus: number | null;
  readonly responseHeaders: Record<string, string>;
  readonly responseBody: string | null;
  readonly error: string | null;
  readonly durationMs: number;
};

/** One attempt to record and what it means for the delivery. */
export type RecordEntry = {
  readonly id: string;
  readonly hookId: string;
  readonly attempt: AttemptRecord;
  readonly outcome: {
    succeeded: boolean;
    retryAt: number | undefined;
    attempts: number;
    now: number;
  };
};

/**
 * Stores one attempt and frees the delivery's lease. `retryAt` set: queued again for then; unset: final, `delivered` when
 * `succeeded`, else `failed`.
 */
async function record(
  queue: LeaseQueue<Tables, 'webhook_deliveries'>,
  id: string,
  attempt: AttemptRecord,
  outcome: RecordEntry['outcome'],
) {
  const state =
    outcome.retryAt !== undefined ? 'queued' : outcome.succeeded ? 'delivered' : 'failed';
  await queue.release(id, {
    set: {
      state,
      attempts: outcome.attempts,
      next_attempt_at: outcome.retryAt ?? outcome.now,
      request_url: attempt.requestUrl,
      request_headers: JSON.stringify(attempt.requestHeaders),
      request_body: attempt.requestBody,
      response_status: attempt.responseStatus,
      response_headers: JSON.stringify(attempt.responseHeaders),
      response_body: attempt.responseBody,
      error: attempt.error,
      duration_ms: attempt.durationMs,
      delivered_at: outcome.now,
    },
  });
}

function parseHeaders(text: string | null): Record<string, string> {
  return text ? (JSON.parse(text) as Record<string, string>) : {};
}

function toDelivery(row: Row): Delivery {
  return {
    id: row.id,
    hookId: row.hook_id,
    event: row.event,
    eventType: row.event_type,
    state: row.state,
    attempts: Number(row.attempts),
    requestUrl: row.request_url,
    requestHeaders: parseHeaders(row.request_headers),
    requestBody: row.request_body,
    payload: row.payload,
    responseStatus: row.response_status === null ? null : Number(row.response_status),
    responseHeaders: parseHeaders(row.response_headers),
    responseBody: row.response_body,
    error: row.error,
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
    createdAt: new Date(Number(row.created_at)),
    deliveredAt: row.delivered_at === null ? null : new Date(Number(row.delivered_at)),
  };
}

/** Enqueueing, claiming and recording deliveries in `webhook_deliveries`. */
export class DeliveryStore {
  readonly #db: Db;
  readonly #queue: LeaseQueue<Tables, 'webhook_deliveries'>;

  constructor(db: Db, dialect: Dialect = 'sqlite') {
    this.#db = db;
    this.#queue = new LeaseQueue(db, DELIVERY_QUEUE, dialect);
  }

  async enqueue(rows: readonly WebhookDeliveriesTable[]): Promise<void> {
    if (rows.length === 0) return;
    // Bounded batches: SQLite limits the parameters of one statement.
    for (let at = 0; at < rows.length; at += 50) {
      await this.#db
        .insertInto('webhook_deliveries')
        .values(rows.slice(at, at + 50))
        .execute();
    }
  }

  /**
   * Claims up to `limit` due deliveries for `leaseMs` through the one lease queue: each attempt
   * is made by one process, and a holder that dies lets its lease run out, after which the row
   * is claimed again.
   */
  async claim(limit: number, now: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    const rows = await this.#queue.claimDue(limit, {
      now,
      leaseMs,
      returning: ['id', 'hook_id', 'event', 'event_type', 'payload', 'attempts'],
    });
    return rows.map((row) => ({
      id: row.id,
      hookId: row.hook_id,
      event: row.event,
      eventType: row.event_type,
      payload: row.payload,
      attempts: Number(row.attempts),
    }));
  }

  /**
   * Stores several attempts in one transaction (see `record`), with `alongside` (the hooks'
   * failure counts) in the same one.
   */
  async recordMany(
    entries: readonly RecordEntry[],
    alongside?: (trx: Db) => Promise<void>,
  ): Promise<void> {
    if (entries.length === 0) return;
    await this.#db.transaction().execute(async (trx) => {
      const queue = new LeaseQueue<Tables, 'webhook_deliveries'>(trx, DELIVERY_QUEUE);
      for (const { id, attempt, outcome } of entries) await record(queue, id, attempt, outcome);
      await alongside?.(trx);
    });
  }

  /** The latest deliveries of a hook, newest first. */
  async listForHook(hookId: string, limit: number): Promise<Delivery[]> {
    const rows = await this.#db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('hook_id', '=', hookId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toDelivery);
  }

  /** The latest delivery of each of `hookIds` that has one, in one query. */
  async latestOf(hookIds: readonly string[]): Promise<Map<string, Delivery>> {
    if (hookIds.length === 0) return new Map();
    const rows = await this.#db
      .selectFrom('webhook_deliveries as d')
      .selectAll('d')
      .where('d.hook_id', 'in', hookIds)
      .where('d.id', '=', (eb) =>
        eb
          .selectFrom('webhook_deliveries as newer')
          .select('newer.id')
          .whereRef('newer.hook_id', '=', 'd.hook_id')
          .orderBy('newer.created_at', 'desc')
          .orderBy('newer.id', 'desc')
          .limit(1),
      )
      .execute();
    return new Map(rows.map((row) => [row.hook_id, toDelivery(row)]));
  }

  async find(hookId: string, id: string): Promise<Delivery | undefined> {
    const row = await this.#db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('hook_id', '=', hookId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toDelivery(row) : undefined;
  }

  /** Deliveries still waiting (queued, due or not). */
  async countQueued(): Promise<number> {
    const row = await this.#db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('state', '=', 'queued')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Drops finished records older than `before`. */
  async prune(before: number): Promise<void> {
    await this.#db
      .deleteFrom('webhook_deliveries')
      .where('state', '<>', 'queued')
      .where('created_at', '<', before)
      .execute();
  }
}
