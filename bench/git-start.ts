/**
 * How long starting one git process holds the main thread, through the spawner against directly
 * (`KILN_GIT_SPAWNER=0`), in a process that holds as much memory as a busy server.
 *
 * `spawnGit()` is timed around the call itself (what the event loop waits for); the process is
 * then run to its end, untimed. Modes alternate in rounds, medians are compared.
 *
 *   node bench/git-start.ts [--starts 40] [--rounds 3] [--ballast 150]
 */
import { parseArgs } from 'node:util';
import { runGit, spawnGit } from '../src/git/command.ts';

const { values: args } = parseArgs({
  options: {
    starts: { type: 'string', default: '40' },
    rounds: { type: 'string', default: '3' },
    ballast: { type: 'string', default: '150' },
  },
});
const STARTS = Number(args.starts);
const ROUNDS = Number(args.rounds);

// Resident memory a server holds: buffers, and a heap of small objects (page tables grow with both).
const ballast = Array.from({ length: Number(args.ballast) }, (_, i) => Buffer.alloc(2 ** 20, i));
const objects = Array.from({ length: 300_000 }, (_, i) => ({ i, text: `object ${i}` }));

const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** Milliseconds each `spawnGit()` call held the thread, `STARTS` of them. */
async function holds(direct: boolean): Promise<number[]> {
  process.env.KILN_GIT_SPAWNER = direct ? '0' : '1';
  await runGit(['version']);
  const times: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const started = performance.now();
    const proc = spawnGit(['version']);
    times.push(performance.now() - started);
    proc.stdin.end();
    proc.stdout.resume();
    await proc.done;
  }
  return times;
}

const direct: number[] = [];
const spawner: number[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  const d = await holds(true);
  const s = await holds(false);
  direct.push(...d);
  spawner.push(...s);
  process.stdout.write(
    `round ${round}: directly median ${median(d).toFixed(2)} ms, through the spawner ${median(s).toFixed(2)} ms\n`,
  );
}
const rss = process.memoryUsage().rss / 2 ** 20;
const ratio = median(spawner) / median(direct);
process.stdout.write(
  `${STARTS * ROUNDS} starts each at ${rss.toFixed(0)} MB RSS (${ballast.length} MB of buffers, ${objects.length} objects): directly median ${median(direct).toFixed(2)} ms, through the spawner ${median(spawner).toFixed(2)} ms\n`,
);
const figures = [
  {
    name: `main thread held per git start, spawner ÷ direct, at ${rss.toFixed(0)} MB RSS, medians`,
    target: '≤ 0.2',
    measured: Number(ratio.toFixed(3)),
    unit: 'ratio',
    pass: ratio <= 0.2,
  },
];
process.stdout.write(`${JSON.stringify({ figures })}\n`);
