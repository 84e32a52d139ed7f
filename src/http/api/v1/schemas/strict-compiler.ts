import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';

/**
 * A route validator that checks every part exactly as its TypeBox schema says, converting
 * nothing: JSON bodies get Gitea's 422 for `5` where a string belongs or `"yes"` for a boolean
 * (Fastify's default Ajv would coerce them). Only for routes whose path and query schemas are
 * plain strings, which need no conversion either.
 */
export const strictCompiler: FastifySchemaCompiler<TSchema> = ({ schema }) => {
  // Compiled on first use, like every other route schema (see plugins/schema-compilers.ts).
  let validator: ReturnType<typeof Compile> | undefined;
  return (value: unknown) => {
    validator ??= Compile(schema);
    if (validator.Check(value)) return { value };
    const errors: FastifySchemaValidationError[] = validator.Errors(value);
    return { error: errors as unknown as Error };
  };
};
