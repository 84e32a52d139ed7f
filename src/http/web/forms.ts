/**
 * A field of a parsed form or query string as it came (a string, an array of them, or missing),
 * for code that checks it itself.
 */
export function formValue(body: unknown, name: string): unknown {
  if (typeof body !== 'object' || body === null || !Object.hasOwn(body, name)) return undefined;
  return Object.getOwnPropertyDescriptor(body, name)?.value;
}

/** Reads a text field of a parsed urlencoded form; anything else (arrays, missing) is ''. */
export function field(body: unknown, name: string, maxLength = 10_000): string {
  const value = formValue(body, name);
  return typeof value === 'string' ? value.slice(0, maxLength) : '';
}

/** Every value of a repeated field (checkboxes of one name): one string or an array of them. */
export function fieldValues(body: unknown, name: string, maxLength = 10_000): string[] {
  const value = formValue(body, name);
  if (value === undefined) return [];
  const values = Array.isArray(value) ? value : [value];
  return values.filter((v): v is string => typeof v === 'string').map((v) => v.slice(0, maxLength));
}
