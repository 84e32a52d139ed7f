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
    const recorded = (spec: TestSpecification): number => {
      const seconds = durations[relative(root, spec.moduleId)];
      return typeof seconds === 'number' ? seconds : Number.POSITIVE_INFINITY;
    };
    const base = await super.sort(files);
    const position = new Map(base.map((spec, index) => [spec, index]));
    return base.slice().sort((a, b) => {
      if (a.project.name !== b.project.name) {
        return (position.get(a) ?? 0) - (position.get(b) ?? 0);
      }
      const ra = recorded(a);
      const rb = recorded(b);
      if (ra !== rb) return rb > ra ? 1 : -1;
      return (position.get(a) ?? 0) - (position.get(b) ?? 0);
    });
  }
}
