import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fingerprint } from './fingerprint.ts';

/** Values of the kinds a converter's inputs are made of, nested. */
const data = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string({ unit: 'binary' }),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.date({ noInvalidDate: true }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string(), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** A structural comparison that tells the kinds apart as fingerprint promises to. */
function same(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && Object.is(a.getTime(), b.getTime());
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, i) => same(item, b[i]))
    );
  }
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const left = Object.entries(a);
    const right = Object.entries(b);
    return (
      left.length === right.length &&
      left.every(([key, value], i) => right[i]?.[0] === key && same(value, right[i]?.[1]))
    );
  }
  return Object.is(a, b);
}

describe('fingerprint', () => {
  it('is equal for equal data, and differs whenever the data differ', () => {
    fc.assert(
      fc.property(data, data, (a, b) => {
        expect(fingerprint(a) === fingerprint(b)).toBe(same(a, b));
        expect(fingerprint(a)).toBe(fingerprint(structuredClone(a)));
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps apart strings that shift text from one field into the next', () => {
    expect(fingerprint({ a: 'xs1:', b: 'y' })).not.toBe(fingerprint({ a: 'x', b: 's1:y' }));
    expect(fingerprint(['a', 'b'])).not.toBe(fingerprint(['ab']));
    expect(fingerprint({ a: 1 })).not.toBe(fingerprint({ a: '1' }));
    expect(fingerprint(0)).not.toBe(fingerprint(-0));
    expect(fingerprint(null)).not.toBe(fingerprint(undefined));
    expect(fingerprint(new Date(5))).not.toBe(fingerprint(new Date(6)));
  });

  it('refuses values it cannot compare', () => {
    expect(() => fingerprint({ call: () => 1 })).toThrow(TypeError);
  });
});
