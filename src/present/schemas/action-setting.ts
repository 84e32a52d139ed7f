import { Type } from './type.ts';

/** Gitea's `Secret`: a secret's name and when it was created; never its value. */
export const ApiSecretSchema = Type.Object({
  name: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});

/** Gitea's `ActionVariable`: `repo_id` is 0 for an organisation's variable. */
export const ApiActionVariableSchema = Type.Object({
  owner_id: Type.Integer(),
  repo_id: Type.Integer(),
  name: Type.String(),
  data: Type.String(),
});

/** `CreateOrUpdateSecretOption`. */
export const SecretOptionSchema = Type.Object({ data: Type.String() });

/** `CreateVariableOption` and `UpdateVariableOption` (whose `name` renames the variable). */
export const VariableOptionSchema = Type.Object({
  value: Type.String(),
  name: Type.Optional(Type.String({ maxLength: 255 })),
});
