import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from './step-process.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'kiln-step-process-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Runs a bash script, through FIFOs in `pipeDir` or ordinary pipes; answers its lines. */
async function bash(script: string, pipeDir?: string) {
  const pieces: string[][] = [];
  const end = await runProcess({
    program: 'bash',
    args: ['-c', script],
    cwd: root,
    env: { PATH: process.env.PATH ?? '' },
    onLines: (lines) => pieces.push([...lines]),
    ...(pipeDir ? { pipeDir } : {}),
    signal: new AbortController().signal,
    killGraceMs: 500,
  });
  return { end, pieces, lines: pieces.flat() };
}

describe('runProcess output', () => {
  const script = [
    'for i in $(seq 5000); do echo "line $i"; done',
    'printf "half a li"; sleep 0.1; printf "ne\\r\\n"',
    'echo "to stderr" >&2',
    '(sleep 0.3; echo "from the background") &',
  ].join('\n');

  it('hands on the same lines through FIFOs as through ordinary pipes, in pieces', async () => {
    const pipeDir = join(root, 'pipes');
    const plain = await bash(script);
    const fifo = await bash(script, pipeDir);
    expect(fifo.end).toEqual({ exitCode: 0, timedOut: false, cancelled: false });
    // stdout keeps its order; where a stderr line falls among them depends on timing.
    const stdout = (lines: string[]) => lines.filter((line) => line !== 'to stderr');
    expect(stdout(fifo.lines)).toEqual(stdout(plain.lines));
    expect(stdout(fifo.lines)).toHaveLength(5002);
    expect(stdout(fifo.lines).slice(-2)).toEqual(['half a line', 'from the background']);
    expect(fifo.lines.filter((line) => line === 'to stderr')).toHaveLength(1);
    // Thousands of one-line writes arrive as far fewer pieces.
    expect(fifo.pieces.length).toBeLessThan(500);
  });

  it('uses its FIFOs again for the next process', async () => {
    const pipeDir = join(root, 'reused');
    for (let i = 0; i < 3; i++) {
      const { lines } = await bash(`echo run ${i}; echo err ${i} >&2`, pipeDir);
      expect(lines.sort()).toEqual([`err ${i}`, `run ${i}`]);
    }
    expect(await readdir(pipeDir)).toHaveLength(2);
  });
});
