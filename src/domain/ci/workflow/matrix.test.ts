import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countMatrix, expandMatrix, MAX_MATRIX_COMBINATIONS, MatrixError } from './matrix.ts';
import { MAX_JOBS_PER_RUN, parseWorkflow, planJobs } from './workflow-parse.ts';

/** The expansion spelt out literally: the whole product, then exclude, then include. */
function literalExpansion(matrix: Record<string, unknown>): Record<string, unknown>[] {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const dimensions = Object.entries(matrix).filter(([k]) => k !== 'include' && k !== 'exclude');
  let combinations: Record<string, unknown>[] = dimensions.length === 0 ? [] : [{}];
  for (const [key, values] of dimensions) {
    combinations = combinations.flatMap((c) =>
      (values as unknown[]).map((v) => ({ ...c, [key]: v })),
    );
  }
  for (const entry of (matrix.exclude ?? []) as Record<string, unknown>[]) {
    combinations = combinations.filter(
      (c) => !Object.entries(entry).every(([k, v]) => Object.hasOwn(c, k) && same(c[k], v)),
    );
  }
  const originals = combinations.map((c) => ({ ...c }));
  for (const entry of (matrix.include ?? []) as Record<string, unknown>[]) {
    let merged = false;
    combinations.forEach((c, at) => {
      const original = originals[at] as Record<string, unknown>;
      if (
        Object.entries(entry).every(([k, v]) => !Object.hasOwn(original, k) || same(original[k], v))
      ) {
        Object.assign(c, entry, original);
        merged = true;
      }
    });
    if (!merged) {
      combinations.push({ ...entry });
      originals.push({ ...entry });
    }
  }
  return combinations.length === 0 ? [{}] : combinations;
}

const keys = ['os', 'node', 'arch', 'x'] as const;
const value = fc.oneof(
  fc.integer({ min: 0, max: 4 }),
  fc.constantFrom('a', 'b', 'c'),
  fc.constant({ deep: 1 }),
);
/** Matrices of up to four dimensions of up to 12 values, duplicates and empty lists included. */
const matrix = fc
  .record({
    dimensions: fc.dictionary(
      fc.constantFrom(...keys.slice(0, 3)),
      fc.array(value, { maxLength: 12 }),
    ),
    exclude: fc.array(fc.dictionary(fc.constantFrom(...keys.slice(0, 3)), value, { maxKeys: 3 }), {
      maxLength: 6,
    }),
    include: fc.array(fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 3 }), {
      maxLength: 6,
    }),
  })
  .map(({ dimensions, exclude, include }) => ({
    ...dimensions,
    // Exclusions may only name dimensions.
    exclude: exclude.map((entry) =>
      Object.fromEntries(Object.entries(entry).filter(([k]) => Object.hasOwn(dimensions, k))),
    ),
    include,
  }));

describe('matrix size', () => {
  it('is counted from the declaration as the expansion would make it (generated)', () => {
    fc.assert(
      fc.property(matrix, (declared) => {
        const literal = literalExpansion(declared);
        expect(countMatrix(declared)).toBe(literal.length);
        if (literal.length <= MAX_MATRIX_COMBINATIONS) {
          expect(expandMatrix(declared)).toEqual(literal);
        } else {
          expect(() => expandMatrix(declared)).toThrow(MatrixError);
        }
      }),
      { numRuns: 600 },
    );
  });

  it('refuses exactly the matrices above the cap (generated)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 0, max: 3 }),
        (sizes, includes) => {
          const declared: Record<string, unknown> = Object.fromEntries(
            sizes.map((size, at) => [`k${at}`, Array.from({ length: size }, (_, v) => v)]),
          );
          // Entries naming a key no dimension has merge into every combination.
          declared.include = Array.from({ length: includes }, (_, at) => ({ [`extra${at}`]: at }));
          const product = sizes.reduce((a, b) => a * b, 1);
          expect(countMatrix(declared)).toBe(product);
          if (product > MAX_MATRIX_COMBINATIONS) {
            expect(() => expandMatrix(declared)).toThrow(/more than the 256 a matrix may make/);
          } else {
            expect(expandMatrix(declared)).toHaveLength(product);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('counts a product of a trillion without building it, and lists what exclusions leave', () => {
    const values = Array.from({ length: 1000 }, (_, v) => v);
    const huge = { a: values, b: values, c: values, d: values };
    expect(countMatrix(huge)).toBe(1e12);
    expect(() => expandMatrix(huge)).toThrow(MatrixError);
    // Everything excluded but a=0, b=0: a million combinations left, still refused.
    const some = { a: [0, 1], b: values, c: values, exclude: [{ a: 1 }] };
    expect(countMatrix(some)).toBe(1e6);
    // One value repeated a million times, all excluded but one other.
    const repeated = { a: [...Array(1e6).fill('x'), 'y'], exclude: [{ a: 'x' }] };
    expect(expandMatrix(repeated)).toEqual([{ a: 'y' }]);
  });

  it('refuses more than 256 include or exclude entries', () => {
    const include = Array.from({ length: 257 }, (_, at) => ({ a: at }));
    expect(() => countMatrix({ a: [1], include })).toThrow(/more than 256 entries/);
  });
});

describe('jobs per run', () => {
  const contexts = { github: {}, vars: {}, inputs: {} };
  const job = (size: number) =>
    `    runs-on: x\n    strategy:\n      matrix:\n        v: [${Array.from({ length: size }, (_, at) => at).join(', ')}]\n    steps: [{run: a}]\n`;

  it('plans up to 256 jobs across all matrices and refuses a run above that, whatever splits it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 200 }), { minLength: 1, maxLength: 4 }),
        (sizes) => {
          const text = `on: push\njobs:\n${sizes.map((size, at) => `  j${at}:\n${job(size)}`).join('')}`;
          const total = sizes.reduce((a, b) => a + b, 0);
          const plan = () => planJobs(parseWorkflow('ci.yml', text), contexts);
          if (total <= MAX_JOBS_PER_RUN) expect(plan()).toHaveLength(total);
          else
            expect(plan).toThrow(
              `the workflow makes ${total} jobs, more than the 256 a run may have`,
            );
        },
      ),
      { numRuns: 40 },
    );
  });

  it('names the job whose matrix is over the cap', () => {
    const text = `on: push\njobs:\n  big:\n${job(300)}`;
    expect(() => planJobs(parseWorkflow('ci.yml', text), contexts)).toThrow(
      'job "big": the matrix makes 300 jobs, more than the 256 a matrix may make',
    );
  });
});
