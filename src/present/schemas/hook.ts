import type { Static } from 'typebox';
import { Type } from './type.ts';

/** Gitea's Hook. `config` never carries the secret back. */
export const ApiHookSchema = Type.Object({
  id: Type.Integer(),
  type: Type.String(),
  branch_filter: Type.String(),
  config: Type.Object({
    url: Type.String(),
    content_type: Type.String(),
    http_method: Type.String(),
  }),
  events: Type.Array(Type.String()),
  authorization_header: Type.String(),
  active: Type.Boolean(),
  updated_at: Type.String(),
  created_at: Type.String(),
});

/** The `config` map: the keys Kiln reads; others (a Slack channel, say) are accepted and unused. */
const HookConfig = Type.Object({
  url: Type.Optional(Type.String({ maxLength: 2048 })),
  content_type: Type.Optional(Type.String({ maxLength: 20 })),
  secret: Type.Optional(Type.String({ maxLength: 1024 })),
  http_method: Type.Optional(Type.String({ maxLength: 10 })),
});

/** Gitea's CreateHookOption; `config.url` and `config.content_type` are required by Gitea. */
export const CreateHookOptionSchema = Type.Object({
  type: Type.String({ maxLength: 50 }),
  config: HookConfig,
  events: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 })),
  branch_filter: Type.Optional(Type.String({ maxLength: 1000 })),
  active: Type.Optional(Type.Boolean()),
  authorization_header: Type.Optional(Type.String({ maxLength: 2048 })),
});

/** Gitea's EditHookOption: every field optional; absent ones keep their value. */
export const EditHookOptionSchema = Type.Object({
  config: Type.Optional(HookConfig),
  events: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 })),
  branch_filter: Type.Optional(Type.String({ maxLength: 1000 })),
  active: Type.Optional(Type.Boolean()),
  authorization_header: Type.Optional(Type.String({ maxLength: 2048 })),
});

export type ApiHook = Static<typeof ApiHookSchema>;
export type ApiCreateHookOption = Static<typeof CreateHookOptionSchema>;
export type ApiEditHookOption = Static<typeof EditHookOptionSchema>;
