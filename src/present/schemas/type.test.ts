import { Type as TypeBox } from 'typebox';
import { describe, expect, it } from 'vitest';
import { Type } from './type.ts';

/** Every own property in order, hidden ones included, with whether JSON and Ajv see it. */
function anatomy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(anatomy);
  if (typeof value !== 'object' || value === null) return value;
  return Object.entries(Object.getOwnPropertyDescriptors(value)).map(([key, descriptor]) => [
    key,
    descriptor.enumerable,
    anatomy(descriptor.value),
  ]);
}

/** Each shape built by Kiln's builders and by TypeBox's, side by side. */
const shapes: Array<[string, (t: typeof Type) => unknown]> = [
  ['a string', (t) => t.String()],
  ['a string with options', (t) => t.String({ minLength: 1, maxLength: 255, description: 'x' })],
  ['an option that names a keyword', (t) => t.String({ type: 'string', format: 'date-time' })],
  ['an integer with bounds', (t) => t.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })],
  ['a boolean', (t) => t.Boolean()],
  ['null', (t) => t.Null()],
  ['anything', (t) => t.Unknown()],
  [
    'string, number and boolean literals',
    (t) => [t.Literal('open'), t.Literal(3), t.Literal(true)],
  ],
  ['an array with options', (t) => t.Array(t.String(), { maxItems: 10 })],
  ['a union', (t) => t.Union([t.Literal('LEFT'), t.Literal('RIGHT')])],
  ['an optional string', (t) => t.Optional(t.String({ maxLength: 20 }))],
  ['an optional union', (t) => t.Optional(t.Union([t.String(), t.Null()]))],
  ['an empty object', (t) => t.Object({})],
  [
    'an object with required, optional and nested properties',
    (t) =>
      t.Object(
        {
          name: t.String({ maxLength: 100 }),
          note: t.Optional(t.String()),
          owner: t.Object({ login: t.String(), id: t.Integer() }),
          labels: t.Array(t.Object({ name: t.String() })),
        },
        { additionalProperties: false },
      ),
  ],
  ['an object of optional properties only', (t) => t.Object({ a: t.Optional(t.Boolean()) })],
];

describe('the schema builders', () => {
  it.each(shapes)('build %s exactly as TypeBox does', (_name, build) => {
    const ours = build(Type);
    const theirs = build(TypeBox as unknown as typeof Type);
    expect(anatomy(ours)).toEqual(anatomy(theirs));
    expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs));
  });

  it('leave the schema they mark optional as it was', () => {
    const name = Type.String();
    Type.Optional(name);
    expect(Object.hasOwn(name, '~optional')).toBe(false);
  });

  it('refuse a literal of a kind JSON Schema has no type for', () => {
    expect(() => Type.Literal(Symbol('x') as never)).toThrow(/Literal/);
  });
});
