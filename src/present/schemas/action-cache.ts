import type { Static } from 'typebox';
import { Type } from './type.ts';

/** GitHub's `actions-cache`: one entry of a repository's Actions cache. */
export const ApiActionsCacheSchema = Type.Object({
  id: Type.Integer(),
  ref: Type.String(),
  key: Type.String(),
  version: Type.String(),
  last_accessed_at: Type.String(),
  created_at: Type.String(),
  size_in_bytes: Type.Integer(),
});
export type ApiActionsCache = Static<typeof ApiActionsCacheSchema>;

/** GitHub's `actions-cache-list`. */
export const ApiActionsCacheListSchema = Type.Object({
  total_count: Type.Integer(),
  actions_caches: Type.Array(ApiActionsCacheSchema),
});

/** Filters and paging of the list, as GitHub names them (`limit` and `page` as Gitea's). */
export const ActionsCacheQuerySchema = Type.Object(
  {
    ref: Type.Optional(Type.String({ maxLength: 1024 })),
    key: Type.Optional(Type.String({ maxLength: 512 })),
    page: Type.Optional(Type.String({ maxLength: 20 })),
    limit: Type.Optional(Type.String({ maxLength: 20 })),
    per_page: Type.Optional(Type.String({ maxLength: 20 })),
  },
  { additionalProperties: true },
);

/** The deletion by key: GitHub's `key` (required) and `ref`. */
export const ActionsCacheDeleteQuerySchema = Type.Object(
  {
    key: Type.String({ minLength: 1, maxLength: 512 }),
    ref: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { additionalProperties: true },
);
