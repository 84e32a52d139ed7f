import { Type } from './type.ts';

export const ApiErrorSchema = Type.Object({
  message: Type.String(),
  url: Type.String(),
  errors: Type.Optional(Type.Array(Type.String())),
});

export const ServerVersionSchema = Type.Object({ version: Type.String() });

export const errorResponses = {
  401: ApiErrorSchema,
  403: ApiErrorSchema,
  404: ApiErrorSchema,
  422: ApiErrorSchema,
} as const;
