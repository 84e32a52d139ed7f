import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_LINE_BYTES, parseDiff } from './diff-parse.ts';

/** git's `--raw --numstat --patch -z` output for one added file of these lines. */
function addedFile(lines: readonly string[]): Buffer {
  const raw = `:000000 100644 ${'0'.repeat(40)} ${'1'.repeat(40)} A\0f.txt\0`;
  const numstat = `${lines.length}\t0\tf.txt\0\0`;
  const patch = `diff --git a/f.txt b/f.txt\nnew file mode 100644\n--- /dev/null\n+++ b/f.txt\n@@ -0,0 +1,${lines.length} @@\n${lines.map((line) => `+${line}\n`).join('')}`;
  return Buffer.from(raw + numstat + patch);
}

const piece = fc.constantFrom('a', 'é', '€', '😀', '<');

describe('parseDiff on long lines', () => {
  it('keeps each line whole up to MAX_LINE_BYTES, else its longest prefix that fits, whole characters only', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc
            .tuple(piece, fc.integer({ min: 0, max: MAX_LINE_BYTES / 2 + 10 }))
            .map(([p, n]) => p.repeat(n)),
          { minLength: 1, maxLength: 4 },
        ),
        (lines) => {
          const parsed = parseDiff(addedFile(lines), { maxFiles: 10, maxLines: 100 });
          const shown = parsed.files[0]?.hunks[0]?.lines ?? [];
          expect(shown).toHaveLength(lines.length);
          shown.forEach((line, at) => {
            const original = `+${lines[at]}`;
            expect(original.startsWith(line)).toBe(true);
            expect(line).not.toContain('\uFFFD');
            expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_LINE_BYTES);
            if (Buffer.byteLength(original) <= MAX_LINE_BYTES) expect(line).toBe(original);
            else expect(Buffer.byteLength(line)).toBeGreaterThan(MAX_LINE_BYTES - 4);
          });
        },
      ),
      { numRuns: 60 },
    );
  });
});
