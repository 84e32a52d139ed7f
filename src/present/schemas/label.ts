import type { Static } from 'typebox';
import { Type } from './type.ts';

/** Gitea's Label. Kiln has no labels, so lists of these are always empty. */
export const ApiLabelSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  color: Type.String(),
  description: Type.String(),
  exclusive: Type.Boolean(),
  is_archived: Type.Boolean(),
  url: Type.Union([Type.String(), Type.Null()]),
});

export type ApiLabel = Static<typeof ApiLabelSchema>;
