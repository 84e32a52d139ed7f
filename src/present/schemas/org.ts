import type { Static } from 'typebox';
import { Type } from './type.ts';

/** Gitea's Organization. */
export const ApiOrganizationSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  full_name: Type.String(),
  email: Type.String(),
  avatar_url: Type.String(),
  description: Type.String(),
  website: Type.String(),
  location: Type.String(),
  visibility: Type.String(),
  repo_admin_change_team_access: Type.Boolean(),
  username: Type.String(),
});
export type ApiOrganization = Static<typeof ApiOrganizationSchema>;

/**
 * Gitea's CreateOrgOption: name, full name and visibility. Its other fields (description,
 * website, e-mail, location) are accepted and not kept; the organisation's settings set them.
 */
export const CreateOrgOptionSchema = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 100 }),
    full_name: Type.Optional(Type.String({ maxLength: 1000 })),
    visibility: Type.Optional(Type.String({ maxLength: 20 })),
  },
  { additionalProperties: true },
);
