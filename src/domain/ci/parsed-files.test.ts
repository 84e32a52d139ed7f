import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFiles } from './parsed-files.ts';
import { parseWorkflow } from './workflow/workflow-parse.ts';

const good = 'on: push\njobs:\n  a:\n    runs-on: x\n    steps: [{run: a}]\n';
const contents = fc.constantFrom(good, 'on: push\n', 'jobs: [', `${good}# more\n`, ': :');

describe('parseFiles', () => {
  it('gives each file what parsing it alone gives, and lets the event loop run between files (generated)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(contents, { maxLength: 5 }), async (texts) => {
        const files = texts.map((content, n) => ({ path: `.gitea/workflows/w${n}.yml`, content }));
        // Queued before the parse: it runs before the parse ends only if the parse gives way.
        let ran = false;
        setImmediate(() => {
          ran = true;
        });
        const parsed = await parseFiles(files);
        expect(parsed.map((one) => one.file)).toEqual(files);
        for (const { file, name, parsed: outcome } of parsed) {
          let expected: string;
          try {
            expected = parseWorkflow(name, file.content).name;
          } catch (error) {
            expected = `error: ${(error as Error).message}`;
          }
          expect(
            'workflow' in outcome ? outcome.workflow.name : `error: ${outcome.error.message}`,
          ).toBe(expected);
        }
        // One file a turn: a parse of several files does not hold the loop for all of them.
        expect(ran).toBe(files.length > 1);
      }),
      { numRuns: 60 },
    );
  });
});
