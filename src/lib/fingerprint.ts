/**
 * A text that two values share only when they hold the same data: strings, numbers, booleans,
 * null, undefined, dates, arrays and plain objects, nested to any depth. Strings carry their
 * length and every value its kind, so no string (whatever it contains) can pass for the end of
 * one field and the start of the next. For caches of what a pure function made from such
 * values: equal fingerprints, equal inputs, equal output. Walking every field, whatever it is,
 * means a field added later is covered without anyone remembering to add it here.
 *
 * @example
 *   fingerprint({ a: 'x', b: [1, true] }) === fingerprint({ a: 'x', b: [1, true] }); // true
 */
export function fingerprint(value: unknown): string {
  const parts: string[] = [];
  append(parts, value);
  return parts.join('');
}

function append(parts: string[], value: unknown): void {
  switch (typeof value) {
    case 'string':
      parts.push('s', String(value.length), ':', value);
      return;
    case 'number':
      // Object.is keeps -0 apart from 0; String gives NaN and ±Infinity names of their own.
      parts.push('n', Object.is(value, -0) ? '-0' : String(value), ';');
      return;
    case 'boolean':
      parts.push(value ? 'T' : 'F');
      return;
    case 'undefined':
      parts.push('U');
      return;
    case 'object':
      if (value === null) parts.push('N');
      else if (value instanceof Date) parts.push('d', String(value.getTime()), ';');
      else if (Array.isArray(value)) {
        parts.push('[');
        for (const item of value) append(parts, item);
        parts.push(']');
      } else {
        parts.push('{');
        for (const [key, field] of Object.entries(value)) {
          parts.push('k', String(key.length), ':', key);
          append(parts, field);
        }
        parts.push('}');
      }
      return;
    default:
      // Functions, symbols and bigints say nothing a cache could compare; refuse them.
      throw new TypeError(`cannot fingerprint a ${typeof value}`);
  }
}
