import { describe, expect, it } from 'vitest';
import { migrations } from './index.ts';
import { migrationNames } from './names.ts';

describe('the migration list', () => {
  // Branches that each add a migration meet in one list; an append in the wrong place would
  // apply a later-numbered migration before an earlier one on fresh databases only.
  it('applies migrations in the order of their numbers, each number once', () => {
    const names = migrations.map((migration) => migration.name);
    expect(names).toEqual([...names].sort());
    const numbers = names.map((name) => name.slice(0, 4));
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(numbers.map(Number)).toEqual(numbers.map((_, index) => index + 1));
  });

  // A start compares the database with the names of the files, loading no migration.
  it('names each migration after its file, and lists every file', () => {
    expect(migrations.map((migration) => migration.name)).toEqual(migrationNames());
  });
});
