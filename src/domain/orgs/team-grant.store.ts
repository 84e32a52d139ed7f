import type { Db } from '../../db/database.ts';
import type { CollaboratorPermission } from '../repos/repo.types.ts';
import type { TeamGrant } from './team.types.ts';

/**
 * The queries that ask what teams give a person: the access rule's grants and the membership
 * check of rules that name teams. Kept apart from TeamStore, which changes teams, because every
 * repository lookup reads these.
 */
export class TeamGrantStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * What the person's teams (Owners excepted: ownership is the organisation's role) give them,
   * with the listed repositories among `repoIds` that each covers. One query.
   */
  async grantsOf(userId: string, repoIds: readonly string[]): Promise<TeamGrant[]> {
    const ids = [...new Set(repoIds)];
    const rows = await this.#db
      .selectFrom('team_members as tm')
      .innerJoin('teams as t', 't.id', 'tm.team_id')
      .leftJoin('team_repos as tr', (join) =>
        ids.length === 0
          ? join.onRef('tr.team_id', '=', 't.id').on('tr.repo_id', 'is', null)
          : join.onRef('tr.team_id', '=', 't.id').on('tr.repo_id', 'in', ids),
      )
      .select(['t.id', 't.org_id', 't.permission', 't.includes_all_repositories', 'tr.repo_id'])
      .where('tm.user_id', '=', userId)
      .where('t.permission', '!=', 'owner')
      .execute();
    const grants = new Map<string, TeamGrant & { repoIds: Set<string> }>();
    for (const row of rows) {
      let grant = grants.get(row.id);
      if (!grant) {
        grant = {
          orgId: row.org_id,
          permission: row.permission as CollaboratorPermission,
          includesAllRepositories: Boolean(row.includes_all_repositories),
          repoIds: new Set(),
        };
        grants.set(row.id, grant);
      }
      if (row.repo_id) grant.repoIds.add(row.repo_id);
    }
    return [...grants.values()];
  }

  /** Whether the person is a member row of any of the organisation's teams so named (any case). */
  async isMemberOfAnyNamed(
    userId: string,
    orgId: string,
    names: readonly string[],
  ): Promise<boolean> {
    if (names.length === 0) return false;
    const row = await this.#db
      .selectFrom('team_members as tm')
      .innerJoin('teams as t', 't.id', 'tm.team_id')
      .select('t.id')
      .where('tm.user_id', '=', userId)
      .where('t.org_id', '=', orgId)
      .where(
        't.name_lower',
        'in',
        names.map((name) => name.toLowerCase()),
      )
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Whether the person is a member row of a team of the organisation that may create repos. */
  async mayCreateRepos(userId: string, orgId: string): Promise<boolean> {
    const row = await this.#db
      .selectFrom('team_members as tm')
      .innerJoin('teams as t', 't.id', 'tm.team_id')
      .select('t.id')
      .where('tm.user_id', '=', userId)
      .where('t.org_id', '=', orgId)
      .where('t.can_create_org_repo', '=', true)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Whether the person is a member row of any of these teams. */
  async isMemberOfAnyTeamId(userId: string, teamIds: readonly string[]): Promise<boolean> {
    if (teamIds.length === 0) return false;
    const row = await this.#db
      .selectFrom('team_members')
      .select('team_id')
      .where('user_id', '=', userId)
      .where('team_id', 'in', [...teamIds])
      .executeTakeFirst();
    return row !== undefined;
  }
}
