/** Reads a text field of a parsed urlencoded form; anything else (arrays, missing) is ''. */
export function field(body: unknown, name: string, maxLength = 10_000): string {
  if (typeof body !== 'object' || body === null) return '';
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value.slice(0, maxLength) : '';
}

/** Every value of a repeated field (checkboxes of one name): one string or an array of them. */
export function fieldValues(body: unknown, name: string, maxLength = 10_000): string[] {
  if (typeof body !== 'object' || body === null) return [];
  const value = (body as Record<string, unknown>)[name];
  const values = Array.isArray(value) ? value : [value];
  return values.filter((v): v is string => typeof v === 'string').map((v) => v.slice(0, maxLength));
}
