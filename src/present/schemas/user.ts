import type { Static } from 'typebox';
import { Type } from './type.ts';

const NullableUrl = Type.Union([Type.String(), Type.Null()]);

/** Gitea's User; `email` only on the self-scoped object. URL fields are null over MCP. */
export const ApiUserSchema = Type.Object({
  id: Type.Integer(),
  login: Type.String(),
  login_name: Type.String(),
  source_id: Type.Integer(),
  full_name: Type.String(),
  email: Type.Optional(Type.String()),
  avatar_url: NullableUrl,
  html_url: NullableUrl,
  language: Type.String(),
  is_admin: Type.Boolean(),
  last_login: Type.String(),
  created: Type.String(),
  restricted: Type.Boolean(),
  active: Type.Boolean(),
  prohibit_login: Type.Boolean(),
  location: Type.String(),
  website: Type.String(),
  description: Type.String(),
  visibility: Type.String(),
  followers_count: Type.Integer(),
  following_count: Type.Integer(),
  starred_repos_count: Type.Integer(),
  username: Type.String(),
});

export type ApiUser = Static<typeof ApiUserSchema>;
