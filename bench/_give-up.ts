import { rmSync } from 'node:fs';

/**
 * Ends a bench that has run `minutes` with exit code 2 and one line on stderr, removing
 * `scratch` (a directory it made) first: a load test here stops by itself, whatever hangs.
 * Returns what calls it off once the bench is done.
 *
 *   const done = giveUpAfter('render-load', 8);
 *   try { await measure(); } finally { done(); }
 */
export function giveUpAfter(bench: string, minutes: number, scratch?: string): () => void {
  const timer = setTimeout(() => {
    process.stderr.write(`${bench}: gave up after ${minutes} minutes\n`);
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
    process.exit(2);
  }, minutes * 60_000);
  timer.unref();
  return () => clearTimeout(timer);
}
