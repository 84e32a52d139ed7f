import { type Selectable, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { prepared } from '../../db/prepared.ts';
import type { RunnersTable } from '../../db/tables.ts';
import type { ListedRunner, Runner, RunnerScope, RunnerTask } from './runner.types.ts';
import { parseStringArray } from './runner-input.ts';
import { scopeColumns, scopeOf } from './runner-scope.ts';
import { effectiveStatus } from './runner-status.ts';

type RunnerRow = Selectable<RunnersTable>;

/**
 * A runner as stored: its status as last written (not yet judged against the clock), times as
 * epoch milliseconds, and the hash of its secret.
 */
export type StoredRunner = {
  readonly id: string;
  readonly uuid: string;
  readonly tokenHash: string;
  readonly name: string;
  readonly version: string;
  readonly labels: readonly string[];
  readonly capabilities: readonly string[];
  readonly ephemeral: boolean;
  readonly storedStatus: RunnersTable['status'];
  readonly scope: RunnerScope;
  readonly createdAt: number;
  readonly lastSeenAt: number;
};

function fromRow(row: RunnerRow): StoredRunner {
  return {
    id: row.id,
    uuid: row.uuid,
    tokenHash: row.token_hash,
    name: row.name,
    version: row.version,
    labels: parseStringArray(row.labels),
    capabilities: parseStringArray(row.capabilities),
    ephemeral: Boolean(row.ephemeral),
    storedStatus: row.status,
    scope: scopeOf(row),
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
  };
}

/** A stored runner as the domain record, its status as of `now`. */
export function toRunner(stored: StoredRunner, now: number): Runner {
  return {
    id: stored.id,
    uuid: stored.uuid,
    name: stored.name,
    version: stored.version,
    labels: stored.labels,
    capabilities: stored.capabilities,
    ephemeral: stored.ephemeral,
    status: effectiveStatus(stored.storedStatus, stored.lastSeenAt, now),
    scope: stored.scope,
    createdAt: new Date(stored.createdAt),
    lastSeenAt: new Date(stored.lastSeenAt),
  };
}

/** Once a runner shows up again after the sweep marked it offline, it is idle. */
const liftOffline = sql<
  RunnersTable['status']
>`case when status = 'offline' then 'idle' else status end`;

/** Queries over `runners`. */
export class RunnerStore {
  readonly #db: Db;
  // Registration inserts; every later call of a runner starts with a lookup by uuid.
  readonly #insert;
  readonly #byUuid;

  constructor(db: Db) {
    this.#db = db;
    this.#insert = prepared(db, (p: RunnersTable) =>
      db.insertInto('runners').values({
        id: p.id,
        uuid: p.uuid,
        token_hash: p.token_hash,
        name: p.name,
        labels: p.labels,
        version: p.version,
        capabilities: p.capabilities,
        status: p.status,
        ephemeral: p.ephemeral,
        scope_kind: p.scope_kind,
        scope_repo_id: p.scope_repo_id,
        scope_org_id: p.scope_org_id,
        created_at: p.created_at,
        last_seen_at: p.last_seen_at,
      } satisfies Record<keyof RunnersTable, unknown>),
    );
    this.#byUuid = prepared(db, (p: { uuid: string }) =>
      db.selectFrom('runners').selectAll().where('uuid', '=', p.uuid),
    );
  }

  async insert(runner: StoredRunner): Promise<void> {
    await this.#insert({
      id: runner.id,
      uuid: runner.uuid,
      token_hash: runner.tokenHash,
      name: runner.name,
      labels: JSON.stringify(runner.labels),
      version: runner.version,
      capabilities: JSON.stringify(runner.capabilities),
      status: runner.storedStatus,
      ephemeral: runner.ephemeral,
      ...scopeColumns(runner.scope),
      created_at: runner.createdAt,
      last_seen_at: runner.lastSeenAt,
    });
  }

  async findByUuid(uuid: string): Promise<StoredRunner | undefined> {
    const [row] = await this.#byUuid({ uuid });
    return row && fromRow(row);
  }

  async findById(id: string): Promise<StoredRunner | undefined> {
    const row = await this.#db
      .selectFrom('runners')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && fromRow(row);
  }

  /**
   * Records that the runner called. Conditional on the old time, so when replicas race only one
   * of them writes.
   */
  async recordSeen(id: string, previous: number, now: number): Promise<void> {
    await this.#db
      .updateTable('runners')
      .set({ last_seen_at: now, status: liftOffline })
      .where('id', '=', id)
      .where('last_seen_at', '=', previous)
      .execute();
  }

  /**
   * Stores what a starting runner declares, as long as the runner still exists with this secret
   * hash (the caller has verified the secret; the hash guard keeps a runner deleted and
   * re-created meanwhile from being written to).
   */
  async declare(
    uuid: string,
    tokenHash: string,
    fields: { version: string; labels: readonly string[]; capabilities: readonly string[] },
    now: number,
  ): Promise<StoredRunner | undefined> {
    const row = await this.#db
      .updateTable('runners')
      .set({
        version: fields.version,
        labels: JSON.stringify(fields.labels),
        capabilities: JSON.stringify(fields.capabilities),
        last_seen_at: now,
        status: liftOffline,
      })
      .where('uuid', '=', uuid)
      .where('token_hash', '=', tokenHash)
      .returningAll()
      .executeTakeFirst();
    return row && fromRow(row);
  }

  /** Runners of one scope, or of every scope when `scope` is undefined; newest first. */
  async list(scope: RunnerScope | undefined, now: number): Promise<ListedRunner[]> {
    let query = this.#db
      .selectFrom('runners')
      .leftJoin('repositories as repo', 'repo.id', 'runners.scope_repo_id')
      .leftJoin('users as repo_owner', 'repo_owner.id', 'repo.owner_id')
      .leftJoin('users as org', 'org.id', 'runners.scope_org_id')
      .selectAll('runners')
      .select([
        'repo.name as repo_name',
        'repo_owner.handle as repo_owner_handle',
        'org.handle as org_handle',
      ]);
    if (scope !== undefined) {
      const columns = scopeColumns(scope);
      query = query.where('runners.scope_kind', '=', columns.scope_kind);
      if (columns.scope_repo_id !== null) {
        query = query.where('runners.scope_repo_id', '=', columns.scope_repo_id);
      }
      if (columns.scope_org_id !== null) {
        query = query.where('runners.scope_org_id', '=', columns.scope_org_id);
      }
    }
    const rows = await query.orderBy('runners.created_at', 'desc').execute();
    const current = await this.#runningTasks(rows.map((row) => row.id));
    return rows.map((row) => ({
      ...toRunner(fromRow(row), now),
      scopeLabel: scopeLabel(row.scope_kind, row),
      currentTask: current.get(row.id) ?? null,
    }));
  }

  /** The running task of each runner that has one (the newest if several), by runner id. */
  async #runningTasks(runnerIds: readonly string[]): Promise<Map<string, RunnerTask>> {
    const tasks = new Map<string, RunnerTask>();
    if (runnerIds.length === 0) return tasks;
    const rows = await this.#db
      .selectFrom('ci_tasks')
      .innerJoin('workflow_runs', 'workflow_runs.id', 'ci_tasks.run_id')
      .innerJoin('repositories', 'repositories.id', 'workflow_runs.repo_id')
      .innerJoin('users', 'users.id', 'repositories.owner_id')
      .select([
        'ci_tasks.id',
        'ci_tasks.runner_id',
        'ci_tasks.name',
        'workflow_runs.number',
        'repositories.name as repo_name',
        'users.handle as owner',
      ])
      .where('ci_tasks.status', '=', 'running')
      .where('ci_tasks.runner_id', 'in', [...runnerIds])
      .orderBy('ci_tasks.id')
      .execute();
    for (const row of rows) {
      if (row.runner_id === null) continue;
      tasks.set(row.runner_id, {
        taskId: Number(row.id),
        jobName: row.name,
        runNumber: Number(row.number),
        repoOwner: row.owner,
        repoName: row.repo_name,
      });
    }
    return tasks;
  }

  /**
   * Deletes the runners `runner` replaces: those registered earlier (by creation time, then id,
   * so that of two registrations in one millisecond exactly one stays) with its name in its
   * scope, ephemeral ones aside. Answers how many.
   */
  async deleteReplaced(runner: StoredRunner): Promise<number> {
    const columns = scopeColumns(runner.scope);
    // Looked up first: a delete that finds nothing would still tell the change clock that rows
    // may have changed, and every runner's remembered row would be read again.
    const replaced = await this.#db
      .selectFrom('runners')
      .select('id')
      .where('name', '=', runner.name)
      .where('ephemeral', '=', false)
      .where('scope_kind', '=', columns.scope_kind)
      .where((eb) =>
        eb.and([
          columns.scope_repo_id === null
            ? eb('scope_repo_id', 'is', null)
            : eb('scope_repo_id', '=', columns.scope_repo_id),
          columns.scope_org_id === null
            ? eb('scope_org_id', 'is', null)
            : eb('scope_org_id', '=', columns.scope_org_id),
          eb.or([
            eb('created_at', '<', runner.createdAt),
            eb.and([eb('created_at', '=', runner.createdAt), eb('id', '<', runner.id)]),
          ]),
        ]),
      )
      .execute();
    if (replaced.length === 0) return 0;
    const ids = replaced.map((row) => row.id);
    const result = await this.#db.deleteFrom('runners').where('id', 'in', ids).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Deletes a runner; true when it existed. Its tasks keep their history with no runner. */
  async delete(id: string): Promise<boolean> {
    const result = await this.#db.deleteFrom('runners').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}

/** How a scope reads in a listing; shared with the token store. */
export function scopeLabel(
  kind: RunnersTable['scope_kind'],
  names: {
    repo_name: string | null;
    repo_owner_handle: string | null;
    org_handle: string | null;
  },
): string {
  if (kind === 'repository') return `${names.repo_owner_handle ?? '?'}/${names.repo_name ?? '?'}`;
  if (kind === 'organisation') return names.org_handle ?? '?';
  return 'instance';
}
