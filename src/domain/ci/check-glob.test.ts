import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CheckGlobError,
  compileCheckGlob,
  MAX_GLOB_ALTERNATIVES,
  matchBudget,
  matchesCheckGlob,
} from './check-glob.ts';

const matches = (pattern: string, text: string) =>
  matchesCheckGlob(compileCheckGlob(pattern), text, matchBudget());

/** A pattern's part, with what an independent regular expression makes of it. */
type Part = { readonly glob: string; readonly regex: string };
const escapeRegex = (text: string) => text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
const literal = fc
  .constantFrom('a', 'b', 'C', '/', ' ', '(', ')', '-', '.', 'é')
  .map((char): Part => ({ glob: char, regex: escapeRegex(char) }));
const special = fc.constantFrom<Part>(
  { glob: '*', regex: '[\\s\\S]*' },
  { glob: '**', regex: '[\\s\\S]*' },
  { glob: '?', regex: '[\\s\\S]' },
  { glob: '[ab]', regex: '[ab]' },
  { glob: '[!ab]', regex: '[^ab]' },
  { glob: '[a-c]', regex: '[a-c]' },
  { glob: '\\*', regex: '\\*' },
  { glob: '\\{', regex: '\\{' },
);
const part: fc.Arbitrary<Part> = fc.oneof(
  { weight: 4, arbitrary: literal },
  { weight: 3, arbitrary: special },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.array(literal, { maxLength: 3 }), fc.array(literal, { maxLength: 3 }))
      .map(([left, right]): Part => {
        const side = (parts: Part[]) => parts.map((p) => p.glob).join('');
        const rx = (parts: Part[]) => parts.map((p) => p.regex).join('');
        return {
          glob: `{${side(left)},${side(right)}}`,
          regex: `(?:${rx(left)}|${rx(right)})`,
        };
      }),
  },
);
const pattern = fc.array(part, { maxLength: 8 }).map((parts) => ({
  glob: parts.map((p) => p.glob).join(''),
  regex: new RegExp(`^(?:${parts.map((p) => p.regex).join('')})$`, 'u'),
}));
const text = fc
  .array(fc.constantFrom('a', 'b', 'c', 'C', '/', ' ', '(', ')', '-', '.', '*', '{', 'é', 'z'), {
    maxLength: 14,
  })
  .map((chars) => chars.join(''));

describe('check globs', () => {
  it('match as the same pattern read as a regular expression does', () => {
    fc.assert(
      fc.property(pattern, text, (p, t) => {
        expect(matches(p.glob, t)).toBe(p.regex.test(t));
      }),
      { numRuns: 3000 },
    );
  });

  it('match a context written out with its special characters escaped, and nothing longer', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }),
        fc.string({ minLength: 1, maxLength: 3 }),
        (context, more) => {
          const escaped = context.replace(/[\\*?[\]{}]/g, '\\$&');
          expect(matches(escaped, context)).toBe(true);
          expect(matches(escaped, context + more)).toBe(false);
        },
      ),
    );
  });

  it("read Gitea's usual rules", () => {
    expect(matches('CI / test (pull_request)', 'CI / test (pull_request)')).toBe(true);
    expect(matches('CI / *', 'CI / build (linux, 22) (push)')).toBe(true);
    expect(matches('CI / *', 'Lint / build (push)')).toBe(false);
    expect(matches('* (pull_request)', 'a/b / c (pull_request)')).toBe(true);
    expect(matches('{CI,Lint} / test (*)', 'Lint / test (push)')).toBe(true);
    expect(matches('CI / test-[0-9] (push)', 'CI / test-7 (push)')).toBe(true);
    expect(matches('CI / test-[!0-9] (push)', 'CI / test-7 (push)')).toBe(false);
    expect(matches('*', '')).toBe(true);
  });

  it('refuse what does not compile', () => {
    for (const bad of ['CI / [test', 'CI / {a,b', 'trailing \\', '[]', '[z-a]', 'x'.repeat(256)]) {
      expect(() => compileCheckGlob(bad), bad).toThrow(CheckGlobError);
    }
    const many = '{a,b}'.repeat(Math.log2(MAX_GLOB_ALTERNATIVES) + 1);
    expect(() => compileCheckGlob(many)).toThrow(/alternatives/);
  });

  it('stop at the budget on patterns written to be slow, matching nothing more', () => {
    const slow = compileCheckGlob(`*${'a'.repeat(200)}b`);
    const context = 'a'.repeat(2000);
    const budget = matchBudget();
    const started = performance.now();
    for (let i = 0; i < 50; i += 1) expect(matchesCheckGlob(slow, context, budget)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(budget.left).toBeLessThan(0);
    expect(matchesCheckGlob(compileCheckGlob('*'), 'anything', budget)).toBe(false);
  });
});
