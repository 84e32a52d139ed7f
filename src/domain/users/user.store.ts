import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { uniqueOrConflict } from '../../db/errors.ts';
import { prepared } from '../../db/prepared.ts';
import type { UsersTable } from '../../db/tables.ts';
import { likePattern } from '../../lib/like.ts';
import { ACTIONS_BOT_ID } from './actions-bot.ts';
import { REMOTE_AUTHOR_ID } from './remote-author.ts';

/**
 * Accounts that are no one's: the actions bot and the account pulls from other servers are filed
 * under. Never counted, listed, found or signed in as (remote-author.ts says why it matters).
 */
const SYSTEM_ACCOUNT_IDS: string[] = [ACTIONS_BOT_ID, REMOTE_AUTHOR_ID];

import type { Account, NewAccount, PersonRow } from './user.types.ts';

function toAccount(row: UsersTable): Account {
  return {
    id: row.id,
    handle: row.handle,
    kind: row.kind,
    email: row.email,
    fullName: row.full_name,
    description: row.description,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    ...(row.is_admin === true || row.is_admin === 1 ? { siteAdmin: true as const } : {}),
    ...(row.visibility === 'private' ? { private: true as const } : {}),
  };
}

function toPersonRow(row: UsersTable): PersonRow {
  return {
    account: toAccount(row),
    disabledAt: row.disabled_at == null ? null : new Date(Number(row.disabled_at)),
  };
}

/**
 * Inserts an account through `db`, which may be a transaction (an organisation is created
 * together with its first owner's membership). A taken name or email is a `Conflict`.
 */
async function insertAccount(db: Db, account: NewAccount): Promise<Account> {
  const row: UsersTable = {
    id: account.id,
    handle: account.handle,
    handle_lower: account.handle.toLowerCase(),
    kind: account.kind,
    email: account.email,
    email_lower: account.email?.toLowerCase() ?? null,
    full_name: account.fullName,
    description: '',
    password_hash: account.passwordHash,
    created_at: account.createdAt,
    updated_at: account.createdAt,
  };
  await uniqueOrConflict(
    () => db.insertInto('users').values(row).execute(),
    row.email_lower !== null
      ? 'user already exists [name or email taken]'
      : `name "${row.handle}" is already taken`,
  );
  return toAccount(row);
}

/** Queries over `users` (people and organisations). */
export class UserStore {
  readonly #db: Db;
  /** Every signed-in request resolves its person by id. */
  readonly #byId;

  constructor(db: Db) {
    this.#db = db;
    this.#byId = prepared(db, (p: { id: string }) =>
      db.selectFrom('users').selectAll().where('id', '=', p.id),
    );
  }

  async insert(account: NewAccount): Promise<Account> {
    return insertAccount(this.#db, account);
  }

  /** Inserts an account through `db`, a transaction another store holds open. */
  async insertIn(db: Db, account: NewAccount): Promise<Account> {
    return insertAccount(db, account);
  }

  async findByHandle(handle: string): Promise<Account | undefined> {
    const row = await this.#db
      .selectFrom('users')
      .selectAll()
      .where('handle_lower', '=', handle.toLowerCase())
      .where('id', '!=', REMOTE_AUTHOR_ID)
      .executeTakeFirst();
    return row && toAccount(row);
  }

  async findById(id: string): Promise<Account | undefined> {
    const [row] = await this.#byId({ id });
    return row && toAccount(row);
  }

  /**
   * The person with this id while their account is in use: not an organisation, not disabled.
   * Every way of acting as someone (password, session, token) resolves them through here, so
   * the actions bot is never found: it acts only through a live task token (actions-bot.ts).
   */
  async findActiveUserById(id: string): Promise<Account | undefined> {
    if (SYSTEM_ACCOUNT_IDS.includes(id)) return undefined;
    const [row] = await this.#byId({ id });
    if (row?.kind !== 'user' || (row.disabled_at ?? null) !== null) return undefined;
    return toAccount(row);
  }

  /** Whether the person with this id is disabled (false for organisations and unknown ids). */
  async isDisabled(id: string): Promise<boolean> {
    const [row] = await this.#byId({ id });
    return (row?.disabled_at ?? null) !== null;
  }

  /**
   * How many people (not organisations) have an account, disabled ones included. Here and in
   * the people lists the actions bot is left out: it is no one's account.
   */
  async countPeople(): Promise<number> {
    return this.#countKind('user');
  }

  /** How many organisations there are. */
  async countOrgs(): Promise<number> {
    return this.#countKind('org');
  }

  async #countKind(kind: Account['kind']): Promise<number> {
    const row = await this.#db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('kind', '=', kind)
      .where('id', 'not in', SYSTEM_ACCOUNT_IDS)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Every person (no organisations), by handle, with when each was disabled if they were. */
  async listUsers(): Promise<{ account: Account; disabledAt: Date | null }[]> {
    const rows = await this.#db
      .selectFrom('users')
      .selectAll()
      .where('kind', '=', 'user')
      .where('id', 'not in', SYSTEM_ACCOUNT_IDS)
      .orderBy('handle_lower')
      .execute();
    return rows.map(toPersonRow);
  }

  /** One page of people (no organisations) whose handle, name or email contains `query`. */
  async listPeoplePage(
    query: string,
    page: { limit: number; offset: number },
  ): Promise<{ items: PersonRow[]; total: number }> {
    const pattern = likePattern(query);
    const people = this.#db
      .selectFrom('users')
      .where('kind', '=', 'user')
      .where('id', 'not in', SYSTEM_ACCOUNT_IDS)
      .where(
        sql<boolean>`(handle_lower like ${pattern} escape '\\' or lower(full_name) like ${pattern} escape '\\' or email_lower like ${pattern} escape '\\')`,
      );
    const [rows, count] = await Promise.all([
      people.selectAll().orderBy('handle_lower').limit(page.limit).offset(page.offset).execute(),
      people.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map(toPersonRow), total: Number(count.n) };
  }

  /** Makes a person an instance administrator in the database, or not. */
  async setAdmin(id: string, admin: boolean): Promise<void> {
    await this.#db
      .updateTable('users')
      .set({ is_admin: admin })
      .where('id', '=', id)
      .where('kind', '=', 'user')
      .execute();
  }

  /** Disables (at `at`) or re-enables (null) a person. */
  async setDisabledAt(id: string, at: number | null): Promise<void> {
    await this.#db
      .updateTable('users')
      .set({ disabled_at: at })
      .where('id', '=', id)
      .where('kind', '=', 'user')
      .execute();
  }

  async findManyByIds(ids: readonly string[]): Promise<Map<string, Account>> {
    if (ids.length === 0) return new Map();
    const rows = await this.#db
      .selectFrom('users')
      .selectAll()
      .where('id', 'in', [...new Set(ids)])
      .execute();
    return new Map(rows.map((row) => [row.id, toAccount(row)]));
  }

  /** Whether an account holds this address (any case). */
  async holdsEmail(email: string): Promise<boolean> {
    const row = await this.#db
      .selectFrom('users')
      .select('id')
      .where('email_lower', '=', email.toLowerCase())
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The password hash of a person found by handle or email, for sign-in. */
  async findCredentials(login: string): Promise<{ id: string; passwordHash: string } | undefined> {
    const lower = login.toLowerCase();
    const row = await this.#db
      .selectFrom('users')
      .select(['id', 'password_hash'])
      .where('kind', '=', 'user')
      .where('id', 'not in', SYSTEM_ACCOUNT_IDS)
      .where((eb) => eb.or([eb('handle_lower', '=', lower), eb('email_lower', '=', lower)]))
      .executeTakeFirst();
    return row?.password_hash ? { id: row.id, passwordHash: row.password_hash } : undefined;
  }

  async updatePasswordHash(id: string, passwordHash: string, now: number): Promise<void> {
    await this.#db
      .updateTable('users')
      .set({ password_hash: passwordHash, updated_at: now })
      .where('id', '=', id)
      .execute();
  }

  async updateProfile(
    id: string,
    profile: { fullName: string; description: string },
    now: number,
  ): Promise<void> {
    await this.#db
      .updateTable('users')
      .set({ full_name: profile.fullName, description: profile.description, updated_at: now })
      .where('id', '=', id)
      .execute();
  }

  /**
   * People and organisations whose handle or full name contains `query`, by handle; never the
   * actions bot, which is no one to find.
   */
  async search(query: string, limit: number): Promise<Account[]> {
    const pattern = likePattern(query);
    const rows = await this.#db
      .selectFrom('users')
      .selectAll()
      .where('id', 'not in', SYSTEM_ACCOUNT_IDS)
      .where(
        sql<boolean>`(handle_lower like ${pattern} escape '\\' or lower(full_name) like ${pattern} escape '\\')`,
      )
      .orderBy('handle_lower')
      .limit(limit)
      .execute();
    return rows.map(toAccount);
  }
}
