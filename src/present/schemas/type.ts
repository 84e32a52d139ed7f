import type { Type as TypeBox } from 'typebox';

/**
 * The TypeBox builders the REST schemas use, built here instead of loaded from TypeBox.
 *
 * Why: TypeBox's builders are a graph of about 370 ES modules that cost a running server about
 * 10 MB, while Kiln builds its schemas from ten of them, each a one-line JSON Schema object.
 * These produce the very objects TypeBox's do — the same enumerable JSON Schema keywords in the
 * same order, and the same hidden `~kind` and `~optional` markers — and are typed as TypeBox's own
 * functions, so `Static<>`, the Fastify type provider and `@fastify/swagger` see TypeBox schemas.
 * type.test.ts holds every builder equal to TypeBox's on the shapes the routes use; a TypeBox
 * upgrade that changes its output fails there.
 *
 * @example
 * import { Type } from './type.ts';
 * const Params = Type.Object({ owner: Type.String({ maxLength: 100 }) });
 */

type Options = Record<string, unknown> | undefined;
type Schema = Record<string, unknown>;

/** A schema object as TypeBox makes one: keywords, then options, then its hidden kind. */
function create(kind: string, keywords: Schema, options: Options): Schema {
  return hide({ ...keywords, ...options }, '~kind', kind);
}

function hide<T extends Schema>(schema: T, key: string, value: unknown): T {
  return Object.defineProperty(schema, key, {
    value,
    writable: true,
    enumerable: false,
    configurable: true,
  });
}

/** A copy keeping every property descriptor (the hidden ones too), as TypeBox's updates do. */
function copy(schema: Schema): Schema {
  return Object.defineProperties({}, Object.getOwnPropertyDescriptors(schema));
}

function isOptional(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && Object.hasOwn(schema, '~optional');
}

function literalType(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    return typeof value;
  }
  if (typeof value === 'bigint') return 'bigint';
  throw new TypeError('Invalid Literal value');
}

const builders = {
  String: (options?: Options) => create('String', { type: 'string' }, options),
  Integer: (options?: Options) => create('Integer', { type: 'integer' }, options),
  Boolean: (options?: Options) => create('Boolean', { type: 'boolean' }, options),
  Null: (options?: Options) => create('Null', { type: 'null' }, options),
  Unknown: (options?: Options) => create('Unknown', {}, options),
  Literal: (value: unknown, options?: Options) =>
    create('Literal', { type: literalType(value), const: value }, options),
  Array: (items: Schema, options?: Options) => create('Array', { type: 'array', items }, options),
  Union: (anyOf: Schema[], options?: Options) => create('Union', { anyOf }, options),
  Object: (properties: Record<string, Schema>, options?: Options) => {
    const required = Object.keys(properties).filter((key) => !isOptional(properties[key]));
    const keywords = { type: 'object', ...(required.length > 0 ? { required } : {}), properties };
    return create('Object', keywords, options);
  },
  Optional: (schema: Schema) => hide(copy(schema), '~optional', true),
};

type Builders = Pick<
  typeof TypeBox,
  | 'String'
  | 'Integer'
  | 'Boolean'
  | 'Null'
  | 'Unknown'
  | 'Literal'
  | 'Array'
  | 'Union'
  | 'Object'
  | 'Optional'
>;

/** TypeBox's `Type`, for the builders Kiln's schemas use. */
export const Type = builders as unknown as Builders;
