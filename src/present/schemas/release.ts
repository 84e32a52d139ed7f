import type { Static } from 'typebox';
import { Type } from './type.ts';
import { ApiUserSchema } from './user.ts';

const NullableUrl = Type.Union([Type.String(), Type.Null()]);

/** Gitea's Release. `assets` is always empty and `draft` always false: Kiln has neither. */
export const ApiReleaseSchema = Type.Object({
  id: Type.Integer(),
  tag_name: Type.String(),
  target_commitish: Type.String(),
  name: Type.String(),
  body: Type.String(),
  url: NullableUrl,
  html_url: NullableUrl,
  tarball_url: NullableUrl,
  zipball_url: NullableUrl,
  upload_url: NullableUrl,
  draft: Type.Boolean(),
  prerelease: Type.Boolean(),
  created_at: Type.String(),
  published_at: Type.String(),
  author: ApiUserSchema,
  assets: Type.Array(Type.Object({})),
});

export type ApiRelease = Static<typeof ApiReleaseSchema>;

const TagName = Type.String({ maxLength: 255 });
const Title = Type.String({ maxLength: 255 });
const Body = Type.String({ maxLength: 1_000_000 });
const Target = Type.String({ maxLength: 255 });

/** Gitea's CreateReleaseOption; `draft: true` is refused, since drafts do not exist. */
export const CreateReleaseOptionSchema = Type.Object({
  tag_name: Type.String({ minLength: 1, maxLength: 255 }),
  target_commitish: Type.Optional(Target),
  name: Type.Optional(Title),
  body: Type.Optional(Body),
  draft: Type.Optional(Type.Boolean()),
  prerelease: Type.Optional(Type.Boolean()),
});

/** Gitea's EditReleaseOption: every field optional; empty strings leave a field as it is. */
export const EditReleaseOptionSchema = Type.Object({
  tag_name: Type.Optional(TagName),
  target_commitish: Type.Optional(Target),
  name: Type.Optional(Title),
  body: Type.Optional(Body),
  draft: Type.Optional(Type.Boolean()),
  prerelease: Type.Optional(Type.Boolean()),
});

export type CreateReleaseOption = Static<typeof CreateReleaseOptionSchema>;
export type EditReleaseOption = Static<typeof EditReleaseOptionSchema>;

/** Gitea's list filters; anything but `true`/`false` is ignored. */
export const ReleaseListQuerySchema = Type.Object(
  {
    page: Type.Optional(Type.String({ maxLength: 20 })),
    limit: Type.Optional(Type.String({ maxLength: 20 })),
    draft: Type.Optional(Type.String({ maxLength: 10 })),
    'pre-release': Type.Optional(Type.String({ maxLength: 10 })),
  },
  { additionalProperties: true },
);
