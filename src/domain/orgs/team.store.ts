import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { uniqueOrConflict } from '../../db/errors.ts';
import type { TeamsTable } from '../../db/tables.ts';
import { foldId, newId } from '../../lib/ids.ts';
import { OWNERS_TEAM_NAME, type Team, type TeamInput } from './team.types.ts';

function toTeam(row: Selectable<TeamsTable>): Team {
  return {
    id: row.id,
    wireId: Number(row.wire_id),
    orgId: row.org_id,
    name: row.name,
    description: row.description,
    permission: row.permission,
    includesAllRepositories: Boolean(row.includes_all_repositories),
    canCreateOrgRepo: Boolean(row.can_create_org_repo),
    createdAt: Number(row.created_at),
  };
}

/** Writes an organisation's Owners team; called in the transaction that creates the organisation. */
export async function insertOwnersTeam(db: Db, orgId: string, createdAt: number): Promise<void> {
  const id = newId();
  await db
    .insertInto('teams')
    .values({
      id,
      wire_id: foldId(id),
      org_id: orgId,
      name: OWNERS_TEAM_NAME,
      name_lower: OWNERS_TEAM_NAME.toLowerCase(),
      description: '',
      permission: 'owner',
      includes_all_repositories: true,
      can_create_org_repo: true,
      created_at: createdAt,
    })
    .execute();
}

/** The characters and length every team name has (team.policy.ts), Owners included. */
const COULD_BE_TEAM_NAME = /^[A-Za-z0-9_.-]{1,255}$/;

const taken = (name: string) => `team already exists [name: ${name}]`;

/**
 * The `teams`, `team_members` and `team_repos` rows. The Owners team has no member rows: its
 * members are the organisation's owners (`org_members`), read through OrgStore.
 */
export class TeamStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async insert(orgId: string, input: TeamInput): Promise<Team> {
    const id = newId();
    const row = {
      id,
      wire_id: foldId(id),
      org_id: orgId,
      name: input.name,
      name_lower: input.name.toLowerCase(),
      description: input.description,
      permission: input.permission,
      includes_all_repositories: input.includesAllRepositories,
      can_create_org_repo: input.canCreateOrgRepo,
      created_at: Date.now(),
    };
    await uniqueOrConflict(
      () => this.#db.insertInto('teams').values(row).execute(),
      taken(input.name),
    );
    return toTeam(row);
  }

  async update(teamId: string, input: TeamInput): Promise<void> {
    await uniqueOrConflict(
      () =>
        this.#db
          .updateTable('teams')
          .set({
            name: input.name,
            name_lower: input.name.toLowerCase(),
            description: input.description,
            permission: input.permission,
            includes_all_repositories: input.includesAllRepositories,
            can_create_org_repo: input.canCreateOrgRepo,
          })
          .where('id', '=', teamId)
          .execute(),
      taken(input.name),
    );
  }

  /** Changes only the description, the one thing of the Owners team that may change. */
  async updateDescription(teamId: string, description: string): Promise<void> {
    await this.#db.updateTable('teams').set({ description }).where('id', '=', teamId).execute();
  }

  /** Deletes the team; its member and repository rows go with it (cascades). */
  async delete(teamId: string): Promise<void> {
    await this.#db.deleteFrom('teams').where('id', '=', teamId).execute();
  }

  async findByWireId(wireId: number): Promise<Team | undefined> {
    const row = await this.#db
      .selectFrom('teams')
      .selectAll()
      .where('wire_id', '=', wireId)
      .executeTakeFirst();
    return row ? toTeam(row) : undefined;
  }

  async findByName(orgId: string, name: string): Promise<Team | undefined> {
    // What no team could be called (a megabyte, a slash) is absent without asking the database.
    if (!COULD_BE_TEAM_NAME.test(name)) return undefined;
    const row = await this.#db
      .selectFrom('teams')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('name_lower', '=', name.toLowerCase())
      .executeTakeFirst();
    return row ? toTeam(row) : undefined;
  }

  /** The teams of these ids that still exist, in no particular order. */
  async findByIds(ids: readonly string[]): Promise<Team[]> {
    if (ids.length === 0) return [];
    const rows = await this.#db
      .selectFrom('teams')
      .selectAll()
      .where('id', 'in', [...new Set(ids)])
      .execute();
    return rows.map(toTeam);
  }

  /** The organisation's teams, Owners first, then by name. */
  async listByOrg(orgId: string): Promise<Team[]> {
    const rows = await this.#db
      .selectFrom('teams')
      .selectAll()
      .where('org_id', '=', orgId)
      .orderBy('name_lower')
      .execute();
    return rows
      .map(toTeam)
      .sort((a, b) => Number(b.permission === 'owner') - Number(a.permission === 'owner'));
  }

  /**
   * The teams a person belongs to in any organisation: those they are a member row of, and
   * the Owners team of each organisation they own.
   */
  async listOfUser(userId: string): Promise<Team[]> {
    const rows = await this.#db
      .selectFrom('teams')
      .selectAll()
      .where((eb) =>
        eb.or([
          eb(
            'id',
            'in',
            eb.selectFrom('team_members').select('team_id').where('user_id', '=', userId),
          ),
          eb.and([
            eb('permission', '=', 'owner'),
            eb(
              'org_id',
              'in',
              eb
                .selectFrom('org_members')
                .select('org_id')
                .where('user_id', '=', userId)
                .where('role', '=', 'owner'),
            ),
          ]),
        ]),
      )
      .orderBy('org_id')
      .orderBy('name_lower')
      .execute();
    return rows.map(toTeam);
  }

  /** Ids of the team's member rows, in the order they joined. */
  async listMemberIds(teamId: string): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('team_members')
      .select('user_id')
      .where('team_id', '=', teamId)
      .orderBy('created_at')
      .execute();
    return rows.map((row) => row.user_id);
  }

  async isMember(teamId: string, userId: string): Promise<boolean> {
    const row = await this.#db
      .selectFrom('team_members')
      .select('user_id')
      .where('team_id', '=', teamId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Adds the person to the team and, when they are not one yet, to its organisation as a
   * member, in one transaction: a team's members are always members of its organisation.
   */
  async addMember(team: Team, userId: string): Promise<void> {
    const now = Date.now();
    await this.#db.transaction().execute(async (trx) => {
      await trx
        .insertInto('org_members')
        .values({ org_id: team.orgId, user_id: userId, role: 'member', created_at: now })
        .onConflict((oc) => oc.columns(['org_id', 'user_id']).doNothing())
        .execute();
      await trx
        .insertInto('team_members')
        .values({ team_id: team.id, user_id: userId, created_at: now })
        .onConflict((oc) => oc.columns(['team_id', 'user_id']).doNothing())
        .execute();
    });
  }

  async removeMember(teamId: string, userId: string): Promise<void> {
    await this.#db
      .deleteFrom('team_members')
      .where('team_id', '=', teamId)
      .where('user_id', '=', userId)
      .execute();
  }

  async addRepo(teamId: string, repoId: string): Promise<void> {
    await this.#db
      .insertInto('team_repos')
      .values({ team_id: teamId, repo_id: repoId })
      .onConflict((oc) => oc.columns(['team_id', 'repo_id']).doNothing())
      .execute();
  }

  async removeRepo(teamId: string, repoId: string): Promise<void> {
    await this.#db
      .deleteFrom('team_repos')
      .where('team_id', '=', teamId)
      .where('repo_id', '=', repoId)
      .execute();
  }

  /** The repositories listed for the team, by name. */
  async listRepos(teamId: string): Promise<Array<{ id: string; name: string }>> {
    return this.#db
      .selectFrom('team_repos as tr')
      .innerJoin('repositories as r', 'r.id', 'tr.repo_id')
      .select(['r.id', 'r.name'])
      .where('tr.team_id', '=', teamId)
      .orderBy('r.name')
      .execute();
  }
}
