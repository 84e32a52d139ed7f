/** The four kinds of git object. */
export type ObjectType = 'blob' | 'tree' | 'commit' | 'tag';

const TYPES: ReadonlySet<string> = new Set(['blob', 'tree', 'commit', 'tag']);

export function isObjectType(value: string): value is ObjectType {
  return TYPES.has(value);
}
