import type { Static } from 'typebox';
import { ApiRepositorySchema } from './repo.ts';
import { Type } from './type.ts';
import { ApiUserSchema } from './user.ts';

const Url = Type.Union([Type.String(), Type.Null()]);

/** Gitea's PublicKey: a person's SSH key. `key_type` is Gitea's kind of key (`user`). */
export const ApiPublicKeySchema = Type.Object({
  id: Type.Integer(),
  key: Type.String(),
  title: Type.String(),
  fingerprint: Type.String(),
  created_at: Type.String(),
  read_only: Type.Boolean(),
  key_type: Type.String(),
  url: Url,
  user: Type.Optional(ApiUserSchema),
});

export type ApiPublicKey = Static<typeof ApiPublicKeySchema>;

/** Gitea's DeployKey: a key that opens one repository. */
export const ApiDeployKeySchema = Type.Object({
  id: Type.Integer(),
  key_id: Type.Integer(),
  key: Type.String(),
  title: Type.String(),
  fingerprint: Type.String(),
  created_at: Type.String(),
  read_only: Type.Boolean(),
  url: Url,
  repository: Type.Optional(ApiRepositorySchema),
});

export type ApiDeployKey = Static<typeof ApiDeployKeySchema>;

/** Gitea's CreateKeyOption. */
export const ApiCreateKeyOptionSchema = Type.Object({
  title: Type.String({ maxLength: 1000 }),
  key: Type.String({ maxLength: 32 * 1024 }),
  read_only: Type.Optional(Type.Boolean()),
});

/** The `fingerprint` filter of Gitea's key lists. */
export const KeyListQuerySchema = Type.Object({
  fingerprint: Type.Optional(Type.String({ maxLength: 200 })),
});
