import { describe, expect, it } from 'vitest';
import { migrations } from './index.ts';

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
});
