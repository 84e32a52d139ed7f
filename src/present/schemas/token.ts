import type { Static } from 'typebox';
import { Type } from './type.ts';

/** Gitea's AccessToken. `sha1` holds the token itself, and only in the answer that made it. */
export const ApiAccessTokenSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  sha1: Type.String(),
  token_last_eight: Type.String(),
  scopes: Type.Array(Type.String()),
});

export type ApiAccessToken = Static<typeof ApiAccessTokenSchema>;

/** Gitea's CreateAccessTokenOption; Go clients send `"scopes": null` when they name none. */
export const ApiCreateAccessTokenOptionSchema = Type.Object({
  name: Type.String({ maxLength: 1000 }),
  scopes: Type.Optional(
    Type.Union([Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 }), Type.Null()]),
  ),
});
