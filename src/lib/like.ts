/**
 * A `%…%` LIKE pattern matching `text` literally (lower-cased), for use with `escape '\'`, which
 * both SQLite and PostgreSQL understand.
 */
export function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
