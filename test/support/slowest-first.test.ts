/**
 * The order the suite starts its files in: slowest first by the committed durations, files
 * nobody has timed yet first of all, each project a block of its own.
 */
import { describe, expect, it } from 'vitest';
import { readDurations, slowestFirst } from './slowest-first.ts';

type File = { readonly project: string; readonly name: string };
const file = (project: string, name: string): File => ({ project, name });

describe('slowest first', () => {
  it('starts the longest files first and a file with no recorded time before them', () => {
    const seconds: Record<string, number> = { short: 1, long: 90, middle: 20 };
    const files = ['short', 'long', 'new', 'middle'].map((name) => file('integration', name));
    const ordered = slowestFirst(
      files,
      (f) => f.project,
      (f) => seconds[f.name],
    );
    expect(ordered.map((f) => f.name)).toEqual(['new', 'long', 'middle', 'short']);
  });

  it('keeps projects as Vitest ordered them and equal times in their given order', () => {
    const files = [file('integration', 'a'), file('integration', 'b'), file('unit', 'c')];
    const ordered = slowestFirst(
      files,
      (f) => f.project,
      (f) => (f.project === 'unit' ? 100 : 5),
    );
    expect(ordered.map((f) => f.name)).toEqual(['a', 'b', 'c']);
  });

  it('has a recorded time for the slowest suites, so a fresh clone starts them first', () => {
    const durations = readDurations();
    expect(durations['test/authz/matrix.test.ts']).toBeGreaterThan(30);
    for (const seconds of Object.values(durations)) expect(seconds).toBeGreaterThanOrEqual(0);
  });
});
