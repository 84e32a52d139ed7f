import { readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each black-box test file took in a recent full run (a run with
 * KILN_RECORD_DURATIONS=1 rewrites the files it took: test/support/slowest-files.ts), keyed by its path in the repository. Committed, so a fresh clone (CI's) orders its files
 * as well as a checkout whose Vitest cache has seen a run.
 */
export const DURATIONS_FILE = resolve(import.meta.dirname, 'file-durations.json');

const root = resolve(import.meta.dirname, '../..');

/** The recorded durations, or none when the file is missing or unreadable. */
export function readDurations(): Record<string, number> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(DURATIONS_FILE, 'utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, number>) : {};
  } catch {
    return {};
  }
}

/** Writes `measured` over the recorded durations, keeping files this run did not take. */
export function recordDurations(measured: Readonly<Record<string, number>>): void {
  const merged: Record<string, number> = { ...readDurations(), ...measured };
  const sorted = Object.fromEntries(
    Object.keys(merged)
      .sort()
      .map((file) => [file, merged[file]]),
  );
  writeFileSync(DURATIONS_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
}

/**
 * Starts the slowest test files first. Files are handed to workers in this order as they come
 * free, so a long file that started late would run alone at the end while the other workers
 * idle; started first, it overlaps the many short ones, and the run ends within a short file's
 * time of the last worker. A file with no recorded duration (a new one) goes first of all, since
 * nothing says it is short. Vitest's own order — its cache of the last run on this checkout,
 * else file size — breaks ties, and each project still runs as a block.
 */
export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const durations = readDurations();
    return slowestFirst(
      await super.sort(files),
      (spec) => spec.project.name,
      (spec) => durations[relative(root, spec.moduleId)],
    );
  }
}

/**
 * `files` (in Vitest's order) with each project's files reordered slowest first by `seconds`,
 * those without a duration ahead of all others, ties in their given order.
 */
export function slowestFirst<T>(
  files: readonly T[],
  projectOf: (file: T) => string,
  seconds: (file: T) => number | undefined,
): T[] {
  const position = new Map(files.map((file, index) => [file, index]));
  const at = (file: T) => position.get(file) ?? 0;
  const recorded = (file: T) => {
    const value = seconds(file);
    return typeof value === 'number' ? value : Number.POSITIVE_INFINITY;
  };
  return files.slice().sort((a, b) => {
    if (projectOf(a) !== projectOf(b)) return at(a) - at(b);
    const ra = recorded(a);
    const rb = recorded(b);
    if (ra !== rb) return rb > ra ? 1 : -1;
    return at(a) - at(b);
  });
}
