import type { Static } from 'typebox';
import { ApiOrganizationSchema } from './org.ts';
import { Type } from './type.ts';

/** Gitea's Team: a team of an organisation, with the organisation it belongs to. */
export const ApiTeamSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  organization: ApiOrganizationSchema,
  includes_all_repositories: Type.Boolean(),
  permission: Type.String(),
  units: Type.Array(Type.String()),
  units_map: Type.Object({}, { additionalProperties: Type.String() }),
  can_create_org_repo: Type.Boolean(),
});
export type ApiTeam = Static<typeof ApiTeamSchema>;

const teamFields = {
  description: Type.Optional(Type.String({ maxLength: 1000 })),
  includes_all_repositories: Type.Optional(Type.Boolean()),
  permission: Type.Optional(Type.String({ maxLength: 20 })),
  can_create_org_repo: Type.Optional(Type.Boolean()),
  // A team's level covers every part of a repository alike; per-unit levels are accepted and
  // not kept, so Gitea's clients that always send them are served.
  units: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50 })),
  units_map: Type.Optional(Type.Object({}, { additionalProperties: true, maxProperties: 50 })),
};

/** Gitea's CreateTeamOption: a name, and the level (read by default) over which repositories. */
export const CreateTeamOptionSchema = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 255 }), ...teamFields },
  { additionalProperties: true },
);
export type CreateTeamOption = Static<typeof CreateTeamOptionSchema>;

/** Gitea's EditTeamOption: fields left out keep their value. */
export const EditTeamOptionSchema = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 255 }), ...teamFields },
  { additionalProperties: true },
);
export type EditTeamOption = Static<typeof EditTeamOptionSchema>;
