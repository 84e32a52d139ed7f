import { createRequire } from 'node:module';
import type { FastifySchemaCompiler, FastifyServerOptions } from 'fastify';

/**
 * Fastify's own validator and serializer compilers (Ajv and fast-json-stringify), made lazy and
 * shared: a route's schema is compiled on its first request instead of at start-up, and routes
 * with identical schemas (every route's error responses, the many lists of repositories) share
 * one compiled function. Kiln registers a few hundred schemas of which a process typically
 * uses a handful; compiling all of them up front cost most of the start-up time and tens of
 * megabytes of memory.
 */

type RouteSchema = { schema: unknown; httpPart?: string; httpStatus?: string };
type Validator = ((data: unknown) => unknown) & { errors?: unknown };
type Serializer = (data: unknown) => string;
type Factory<T> = (externalSchemas: unknown, options: unknown) => (route: RouteSchema) => T;

// Resolved from Fastify's own location, so these are exactly the versions Fastify would use; and
// required with the first schema compiled, since Ajv and fast-json-stringify are about a hundred
// modules an idle server has no use for.
const fastifyRequire = createRequire(createRequire(import.meta.url).resolve('fastify'));
const ajvSelector = () => (fastifyRequire('@fastify/ajv-compiler') as () => Factory<Validator>)();
const fjsSelector = () =>
  (fastifyRequire('@fastify/fast-json-stringify-compiler') as () => Factory<Serializer>)();

/** `factory`, made and applied to its options only when a first route's schema is compiled. */
function onFirstCompile<T>(
  factory: () => Factory<T>,
  externalSchemas: unknown,
  options: unknown,
): (route: RouteSchema) => T {
  let compile: ((route: RouteSchema) => T) | undefined;
  return (route) => {
    compile ??= factory()(externalSchemas, options);
    return compile(route);
  };
}

function keyOf(route: RouteSchema, part: string | undefined): string {
  return `${part ?? ''}\u0000${JSON.stringify(route.schema)}`;
}

/** Validators compiled on first use; `.errors` is copied so Fastify reads it as from Ajv's. */
function lazyValidators(build: () => Factory<Validator>): Factory<Validator> {
  return (externalSchemas, options) => {
    const compile = onFirstCompile(build, externalSchemas, options);
    const cache = new Map<string, Validator>();
    return (route) => {
      const key = keyOf(route, route.httpPart);
      const cached = cache.get(key);
      if (cached) return cached;
      let compiled: Validator | undefined;
      const lazy: Validator = (data) => {
        compiled ??= compile(route);
        const result = compiled(data);
        lazy.errors = compiled.errors;
        return result;
      };
      cache.set(key, lazy);
      return lazy;
    };
  };
}

function lazySerializers(build: () => Factory<Serializer>): Factory<Serializer> {
  return (externalSchemas, options) => {
    const compile = onFirstCompile(build, externalSchemas, options);
    const cache = new Map<string, Serializer>();
    return (route) => {
      const key = keyOf(route, undefined);
      const cached = cache.get(key);
      if (cached) return cached;
      let compiled: Serializer | undefined;
      const lazy: Serializer = (data) => {
        compiled ??= compile(route);
        return compiled(data);
      };
      cache.set(key, lazy);
      return lazy;
    };
  };
}

/**
 * Validators that convert nothing, for routes whose bodies must be refused rather than coerced:
 * Gitea answers 422 for `5` where a string belongs or `"yes"` for a boolean, where Fastify's
 * default Ajv would turn them into `"5"` and `true`. Defaults are not filled in and unknown
 * properties are not stripped either: the body is checked exactly as sent. Only for routes
 * whose path and query schemas are plain strings, which need no conversion. Same Ajv, same
 * error shape, same lazy compilation and sharing as every other route.
 */
export const strictValidatorCompiler: FastifySchemaCompiler<unknown> = lazyValidators(ajvSelector)(
  {},
  { customOptions: { coerceTypes: false, useDefaults: false, removeAdditional: false } },
) as FastifySchemaCompiler<unknown>;

type CompilersFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>;

/** The `schemaController.compilersFactory` option for `Fastify(...)`. */
export function lazySchemaCompilers(): CompilersFactory {
  return {
    buildValidator: lazyValidators(ajvSelector),
    buildSerializer: lazySerializers(fjsSelector),
  } as unknown as CompilersFactory;
}
