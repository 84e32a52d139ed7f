/** Annotation commands as the runner reads them, and as the log keeps them. */

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTestJob } from './test-support.ts';
import { parseWorkflowCommand } from './workflow-commands.ts';

describe('annotation commands', () => {
  it("reads an ::error with its location and title, undoing the toolkit's escapes", () => {
    expect(
      parseWorkflowCommand(
        '  ::error file=src/a%2Cb.ts,line=3,col=7,title=Bad%3A thing::x%25 is%0Awrong',
      ),
    ).toEqual({
      name: 'error',
      properties: { file: 'src/a,b.ts', line: '3', col: '7', title: 'Bad: thing' },
      message: 'x% is\nwrong',
    });
    expect(parseWorkflowCommand('::NOTICE::all good')?.name).toBe('notice');
  });

  it('keeps each annotation line in the log exactly as the step printed it', async () => {
    const root = await mkdtemp(join(tmpdir(), 'kiln-annotations-'));
    try {
      const lines = [
        '::error file=src/a.ts,line=3,endLine=4,col=7,endColumn=9,title=Bad::x is%0Awrong',
        '::warning file=README.md::spelling',
        '  ::notice title=Note::done',
      ];
      const script = lines.map((l) => `echo '${l}'`).join('\n          ');
      const { text } = await runTestJob(
        join(root, 'work'),
        `jobs:\n  a:\n    steps:\n      - run: |\n          ${script}\n`,
      );
      const logged = text.split('\n');
      for (const line of lines) expect(logged).toContain(line);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
