import { isRecord } from './triggers.ts';

/** One combination of matrix values, keys in declaration order. */
export type MatrixCombination = Readonly<Record<string, unknown>>;

/** A matrix that cannot be expanded; the message names the problem for the run's record. */
export class MatrixError extends Error {}

/**
 * Expands `strategy.matrix` as GitHub does: the cartesian product of the keys, then `exclude`
 * (an entry removes every combination it matches; naming a key the matrix lacks is an error),
 * then `include` (an entry is merged into every combination whose original values it does not
 * contradict, adding keys without overwriting original values; an entry that fits none is
 * appended as a combination of its own). A job without a matrix has one empty combination.
 */
export function expandMatrix(matrix: unknown): MatrixCombination[] {
  if (matrix === undefined || matrix === null) return [{}];
  if (!isRecord(matrix)) throw new MatrixError('strategy.matrix must be a mapping');
  const dimensions = Object.entries(matrix).filter(
    ([key]) => key !== 'include' && key !== 'exclude',
  );
  let combinations: Record<string, unknown>[] = [{}];
  for (const [key, values] of dimensions) {
    if (!Array.isArray(values)) throw new MatrixError(`matrix.${key} must be a list`);
    combinations = combinations.flatMap((combination) =>
      values.map((value) => ({ ...combination, [key]: value })),
    );
  }
  if (dimensions.length === 0) combinations = [];
  const keys = new Set(dimensions.map(([key]) => key));
  for (const entry of listOf(matrix.exclude, 'exclude')) {
    for (const key of Object.keys(entry)) {
      if (!keys.has(key)) throw new MatrixError(`matrix.exclude names unknown key "${key}"`);
    }
    combinations = combinations.filter((combination) => !contains(combination, entry));
  }
  const originals = combinations.map((combination) => ({ ...combination }));
  for (const entry of listOf(matrix.include, 'include')) {
    let merged = false;
    combinations.forEach((combination, at) => {
      const original = originals[at] as Record<string, unknown>;
      const fits = Object.entries(entry).every(
        ([key, value]) => !(key in original) || sameValue(original[key], value),
      );
      if (!fits) return;
      Object.assign(combination, entry, original);
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

function listOf(value: unknown, name: string): Record<string, unknown>[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every(isRecord)) {
    throw new MatrixError(`matrix.${name} must be a list of mappings`);
  }
  return value;
}

/** Whether every key of `entry` is in `combination` with an equal value (deeply). */
function contains(combination: Record<string, unknown>, entry: Record<string, unknown>): boolean {
  return Object.entries(entry).every(
    ([key, value]) => key in combination && sameValue(combination[key], value),
  );
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The suffix GitHub adds to a matrix job's name: `(18, linux)`, objects as JSON. */
export function combinationLabel(combination: MatrixCombination): string {
  const values = Object.values(combination).map((value) =>
    typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value),
  );
  return values.length === 0 ? '' : `(${values.join(', ')})`;
}
