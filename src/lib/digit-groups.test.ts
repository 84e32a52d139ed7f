import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withDigitGroups } from './digit-groups.ts';

describe('withDigitGroups', () => {
  it('writes numbers as toLocaleString("en") does', () => {
    for (const value of [0, 7, 1000, 1234567, 0.5, 2.25, 1 / 3, -9876.54321, 1e15]) {
      expect(withDigitGroups(value)).toBe(value.toLocaleString('en'));
    }
    fc.assert(
      fc.property(
        fc.oneof(fc.integer(), fc.double({ min: -1e12, max: 1e12, noNaN: true })),
        (value) => {
          expect(withDigitGroups(value)).toBe(value.toLocaleString('en'));
        },
      ),
    );
  });

  it('is what the code a start runs uses instead of Intl', () => {
    // Outside the web pages, which format with Intl when a page is asked for.
    const root = join(import.meta.dirname, '..');
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter(
      (file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.startsWith('http/web/'),
    );
    const offenders = files.filter((file) =>
      /\.toLocaleString\(|new Intl\./.test(readFileSync(join(root, file), 'utf8')),
    );
    expect(offenders).toEqual([]);
  });
});
