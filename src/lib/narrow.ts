/*
 * Type guards for values read from outside (parsed JSON, query strings, form fields), so code
 * narrows what it checked instead of asserting it.
 */

/** Whether a value is a plain object whose fields can be read one by one (not null, no array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `value` is one of `choices` (a closed set of names, say), narrowed to it. */
export function isOneOf<T>(choices: readonly T[], value: unknown): value is T {
  return choices.some((choice) => choice === value);
}
