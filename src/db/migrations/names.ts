import { readdirSync } from 'node:fs';

/** A migration's file: its four-digit number and name, `0007-owner-repo-counts.ts`. */
const MIGRATION_FILE = /^(\d{4}-[a-z0-9-]+)\.ts$/;

/**
 * The names of every migration this version knows, in the order they apply, read from the files
 * of this directory rather than from the migrations themselves: a start whose database is up to
 * date compares names only, and never loads the forty-odd modules (and their SQL) it would not
 * run. Each file's name is its migration's name; `index.test.ts` holds the two lists equal.
 */
export function migrationNames(): string[] {
  return readdirSync(import.meta.dirname)
    .flatMap((file) => MIGRATION_FILE.exec(file)?.[1] ?? [])
    .sort();
}
