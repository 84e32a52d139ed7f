import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const START_UP = join(import.meta.dirname, '..', '..', 'src', 'start-up.js');
const cacheDir = mkdtempSync(join(tmpdir(), 'kiln-start-up-'));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

/**
 * Runs a hot function in a process preloaded as the `kiln` launcher preloads Kiln, before and after
 * `startedUp()`, and reports the tier V8 reached each time.
 */
function tiersAround(extraFlags: string[]): { before: string; after: string } {
  const script = `
    const { startedUp } = await import(${JSON.stringify(pathToFileURL(START_UP).href)});
    function hot(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + i * 7) % 1009; return s; }
    const tier = () => %ActiveTierIsTurbofan(hot) ? 'turbofan' : %ActiveTierIsMaglev(hot) ? 'maglev' : 'unoptimized';
    const run = () => { for (let i = 0; i < 200000 && tier() !== 'turbofan'; i++) hot(100); return tier(); };
    const before = run();
    startedUp();
    console.log(JSON.stringify({ before, after: run() }));
  `;
  const result = spawnSync(
    process.execPath,
    [
      '--allow-natives-syntax',
      ...extraFlags,
      '--import',
      START_UP,
      '--input-type=module',
      '-e',
      script,
    ],
    { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '', NODE_COMPILE_CACHE: cacheDir } },
  );
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout);
}

describe('start-up preload', () => {
  it('keeps hot code unoptimized until start-up is over, then optimizes it', () => {
    expect(tiersAround([])).toEqual({ before: 'unoptimized', after: 'turbofan' });
  });

  it('leaves tiering alone when the command line chose it', () => {
    expect(tiersAround(['--no-turbofan'])).toEqual({ before: 'maglev', after: 'maglev' });
  });
});
