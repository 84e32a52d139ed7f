import type { Db } from '../../db/database.ts';

/**
 * The few reads of repositories and organisations that runner scopes need. Kept here, narrow,
 * so runners do not wait on a repository service for an id lookup.
 */
export class ScopeLookupStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** The id of `owner/name` (any case), or undefined. */
  async findRepositoryId(owner: string, name: string): Promise<string | undefined> {
    const row = await this.#db
      .selectFrom('repositories')
      .innerJoin('users', 'users.id', 'repositories.owner_id')
      .select('repositories.id')
      .where('users.handle_lower', '=', owner.toLowerCase())
      .where('repositories.name_lower', '=', name.toLowerCase())
      .executeTakeFirst();
    return row?.id;
  }

  async repositoryExists(id: string): Promise<boolean> {
    const row = await this.#db
      .selectFrom('repositories')
      .select('id')
      .where('id', '=', id)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The handle of the organisation with this id, or undefined. */
  async findOrganisationHandle(id: string): Promise<string | undefined> {
    const row = await this.#db
      .selectFrom('users')
      .select('handle')
      .where('id', '=', id)
      .where('kind', '=', 'org')
      .executeTakeFirst();
    return row?.handle;
  }

  async organisationExists(id: string): Promise<boolean> {
    return (await this.findOrganisationHandle(id)) !== undefined;
  }
}
