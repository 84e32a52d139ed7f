import { type Assignment, MatrixSpace } from './matrix-count.ts';
import { isRecord } from './triggers.ts';

/** One combination of matrix values, keys in declaration order. */
export type MatrixCombination = Readonly<Record<string, unknown>>;

/** A matrix that cannot be expanded; the message names the problem for the run's record. */
export class MatrixError extends Error {}

/** Combinations one matrix may make, as on GitHub. */
export const MAX_MATRIX_COMBINATIONS = 256;

/** Entries of `include`, and of `exclude`, one matrix may list. */
export const MAX_MATRIX_ENTRIES = 256;

/** A matrix as declared: its dimensions, exclusions and inclusions, checked. */
type Declared = {
  readonly dimensions: readonly (readonly [string, readonly unknown[]])[];
  readonly excludes: readonly Record<string, unknown>[];
  readonly includes: readonly Record<string, unknown>[];
  readonly space: MatrixSpace;
};

function declared(matrix: unknown): Declared | undefined {
  if (matrix === undefined || matrix === null) return undefined;
  if (!isRecord(matrix)) throw new MatrixError('strategy.matrix must be a mapping');
  const dimensions = Object.entries(matrix)
    .filter(([key]) => key !== 'include' && key !== 'exclude')
    .map(([key, values]) => {
      if (!Array.isArray(values)) throw new MatrixError(`matrix.${key} must be a list`);
      return [key, values as unknown[]] as const;
    });
  const keys = new Set(dimensions.map(([key]) => key));
  const excludes = listOf(matrix.exclude, 'exclude');
  for (const entry of excludes) {
    for (const key of Object.keys(entry)) {
      if (!keys.has(key)) throw new MatrixError(`matrix.exclude names unknown key "${key}"`);
    }
  }
  const includes = listOf(matrix.include, 'include');
  const space = new MatrixSpace(
    dimensions.map(([key, values]) => ({ key, ids: values.map(identity) })),
    excludes.map(assignmentOf),
  );
  return { dimensions, excludes, includes, space };
}

/**
 * How many jobs `strategy.matrix` makes, computed from its declaration without expanding it
 * (matrix-count.ts): the combinations exclusions leave, plus one per `include` entry that fits
 * none of the combinations before it; at least one. Throws `MatrixError` for a malformed matrix.
 */
export function countMatrix(matrix: unknown): number {
  const parts = declared(matrix);
  if (parts === undefined) return 1;
  return countDeclared(parts);
}

function countDeclared({ dimensions, includes, space }: Declared): number {
  const keys = new Set(dimensions.map(([key]) => key));
  // With no dimension there is no product: only what `include` appends.
  const left = dimensions.length === 0 ? 0 : space.count();
  const appended: Record<string, unknown>[] = [];
  for (const entry of includes) {
    const onKeys = new Map(
      Object.entries(entry)
        .filter(([key]) => keys.has(key))
        .map(([key, value]) => [key, identity(value)]),
    );
    if (left > 0 && space.count(onKeys) > 0) continue;
    if (appended.some((original) => fits(original, entry))) continue;
    appended.push(entry);
  }
  return Math.max(1, left + appended.length);
}

/** `countMatrix`, refusing a matrix over MAX_MATRIX_COMBINATIONS with a `MatrixError`. */
export function checkedMatrixSize(matrix: unknown): number {
  return refuseOverCap(countMatrix(matrix));
}

function refuseOverCap(count: number): number {
  if (count > MAX_MATRIX_COMBINATIONS) {
    throw new MatrixError(
      `the matrix makes ${count} jobs, more than the ${MAX_MATRIX_COMBINATIONS} a matrix may make`,
    );
  }
  return count;
}

/**
 * Expands `strategy.matrix` as GitHub does: the cartesian product of the keys, then `exclude`
 * (an entry removes every combination it matches; naming a key the matrix lacks is an error),
 * then `include` (an entry is merged into every combination whose original values it does not
 * contradict, adding keys without overwriting original values; an entry that fits none is
 * appended as a combination of its own). A job without a matrix has one empty combination.
 *
 * Invariant: a matrix making more than MAX_MATRIX_COMBINATIONS jobs is refused before anything
 * is expanded, its size counted from its declaration (`countMatrix`), and the product is never
 * built past what exclusions leave; so a pushed workflow costs the server at most the largest
 * allowed matrix, whatever it declares.
 */
export function expandMatrix(matrix: unknown): MatrixCombination[] {
  const parts = declared(matrix);
  if (parts === undefined) return [{}];
  refuseOverCap(countDeclared(parts));
  const { dimensions, includes, space } = parts;
  const combinations: Record<string, unknown>[] =
    dimensions.length === 0
      ? []
      : space
          .positions()
          .map((at) =>
            Object.fromEntries(
              dimensions.map(([key, values], level) => [key, values[at[level] ?? 0]]),
            ),
          );
  const originals = combinations.map((combination) => ({ ...combination }));
  for (const entry of includes) {
    let merged = false;
    combinations.forEach((combination, at) => {
      if (!fits(originals[at] as Record<string, unknown>, entry)) return;
      Object.assign(combination, entry, originals[at]);
      merged = true;
    });
    if (!merged) {
      // An appended combination's values count as original for the entries after it.
      combinations.push({ ...entry });
      originals.push({ ...entry });
    }
  }
  return combinations.length === 0 ? [{}] : combinations;
}

/** Whether `entry` contradicts none of the original values of a combination. */
function fits(original: Record<string, unknown>, entry: Record<string, unknown>): boolean {
  return Object.entries(entry).every(
    ([key, value]) => !Object.hasOwn(original, key) || sameValue(original[key], value),
  );
}

function assignmentOf(entry: Record<string, unknown>): Assignment {
  return new Map(Object.entries(entry).map(([key, value]) => [key, identity(value)]));
}

/** What makes two matrix values the same (deep equality, as JSON). */
function identity(value: unknown): string {
  return JSON.stringify(value) ?? 'undefined';
}

function listOf(value: unknown, name: string): Record<string, unknown>[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every(isRecord)) {
    throw new MatrixError(`matrix.${name} must be a list of mappings`);
  }
  if (value.length > MAX_MATRIX_ENTRIES) {
    throw new MatrixError(`matrix.${name} lists more than ${MAX_MATRIX_ENTRIES} entries`);
  }
  return value;
}

function sameValue(a: unknown, b: unknown): boolean {
  return identity(a) === identity(b);
}

/** The suffix GitHub adds to a matrix job's name: `(18, linux)`, objects as JSON. */
export function combinationLabel(combination: MatrixCombination): string {
  const values = Object.values(combination).map((value) =>
    typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value),
  );
  return values.length === 0 ? '' : `(${values.join(', ')})`;
}
