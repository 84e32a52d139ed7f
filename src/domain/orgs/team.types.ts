import type { CollaboratorPermission } from '../repos/repo.types.ts';

/** What a team gives its members over its repositories; `owner` is the Owners team's alone. */
export type TeamPermission = CollaboratorPermission | 'owner';

/** A team of an organisation. */
export type Team = {
  readonly id: string;
  /** The folded id clients address it by (`/teams/{id}`). */
  readonly wireId: number;
  readonly orgId: string;
  readonly name: string;
  readonly description: string;
  readonly permission: TeamPermission;
  /** Whether it covers every repository of the organisation, present and future. */
  readonly includesAllRepositories: boolean;
  readonly canCreateOrgRepo: boolean;
  readonly createdAt: number;
};

/** The name of every organisation's owners team, which can be neither renamed nor deleted. */
export const OWNERS_TEAM_NAME = 'Owners';

/**
 * What one team of a person gives them, as the access rule reads it: the level, and either
 * every repository of the organisation or the ones listed (only those asked about are loaded).
 */
export type TeamGrant = {
  readonly orgId: string;
  readonly permission: CollaboratorPermission;
  readonly includesAllRepositories: boolean;
  readonly repoIds: ReadonlySet<string>;
};

/** The fields a team is created or changed with, as parsed from a form or an API body. */
export type TeamInput = {
  readonly name: string;
  readonly description: string;
  readonly permission: CollaboratorPermission;
  readonly includesAllRepositories: boolean;
  readonly canCreateOrgRepo: boolean;
};
