import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFiles } from './parsed-files.ts';
import { parseWorkflow } from './workflow/workflow-parse.ts';
import { inProcessWorkflowParser } from './workflow/workflow-parser.ts';

const good = 'on: push\njobs:\n  a:\n    runs-on: x\n    steps: [{run: a}]\n';
const contents = fc.constantFrom(good, 'on: push\n', 'jobs: [', `${good}# more\n`, ': :');

describe('parseFiles', () => {
  it('gives each file what parsing it alone gives, in order, an error as its outcome (generated)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(contents, { maxLength: 5 }), async (texts) => {
        const files = texts.map((content, n) => ({ path: `.gitea/workflows/w${n}.yml`, content }));
        const parsed = await parseFiles(files, inProcessWorkflowParser);
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
      }),
      { numRuns: 60 },
    );
  });

  it("parses no more once the event's budget is spent, and says so for each file left", async () => {
    const slow = {
      ...inProcessWorkflowParser,
      parse: async (name: string, content: string) => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        return inProcessWorkflowParser.parse(name, content);
      },
    };
    const files = Array.from({ length: 6 }, (_, n) => ({
      path: `.gitea/workflows/w${n}.yml`,
      content: good,
    }));
    const parsed = await parseFiles(files, slow, 50);
    const outcomes = parsed.map(({ parsed: one }) =>
      'workflow' in one ? 'parsed' : one.error.message,
    );
    expect(outcomes.slice(0, 2)).toEqual(['parsed', 'parsed']);
    expect(outcomes.at(-1)).toMatch(/^not parsed: .* took longer than 0.05 s/);
    expect(outcomes.filter((one) => one === 'parsed').length).toBeLessThan(files.length);
  });
});
