import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { NODE_FLAGS } from '../../bin/kiln.js';

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
  return runPreloaded(['--allow-natives-syntax', ...extraFlags], script);
}

/** Runs `script` with the start-up preload and `flags`; what it printed, parsed as JSON. */
function runPreloaded<T>(flags: string[], script: string): T {
  const result = spawnSync(
    process.execPath,
    [...flags, '--import', START_UP, '--input-type=module', '-e', script],
    { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '', NODE_COMPILE_CACHE: cacheDir } },
  );
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout);
}

/**
 * Leaves a process preloaded as the launcher preloads Kiln (and with its V8 flags) holding a heap of
 * start-up garbage, calls `releaseStartUpGarbage()`, and reports the heap before and after, and
 * whether any context could see V8's `gc` function afterwards.
 */
function heapAroundRelease(): { before: number; after: number; gcSeen: string[] } {
  const script = `
    const { releaseStartUpGarbage } = await import(${JSON.stringify(pathToFileURL(START_UP).href)});
    const { runInNewContext } = await import('node:vm');
    // Objects that outlive a few young-generation collections and then fall away, as modules'
    // sources and start-up's tables do.
    let kept = [];
    for (let i = 0; i < 300000; i++) kept.push({ i, text: 'x'.repeat(40) + i });
    kept = null;
    const before = process.memoryUsage().heapTotal;
    releaseStartUpGarbage();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const after = process.memoryUsage().heapTotal;
    const gcSeen = [typeof globalThis.gc, runInNewContext('typeof gc')];
    console.log(JSON.stringify({ before, after, gcSeen }));
  `;
  return runPreloaded([...NODE_FLAGS], script);
}

describe('start-up preload', () => {
  it('hands start-up garbage back once, and leaves no context able to call gc', () => {
    const { before, after, gcSeen } = heapAroundRelease();
    expect(before - after).toBeGreaterThan(10 * 2 ** 20);
    expect(gcSeen).toEqual(['undefined', 'undefined']);
  });

  it('keeps hot code unoptimized until start-up is over, then optimizes it', () => {
    expect(tiersAround([])).toEqual({ before: 'unoptimized', after: 'turbofan' });
  });

  it('leaves tiering alone when the command line chose it', () => {
    expect(tiersAround(['--no-turbofan'])).toEqual({ before: 'maglev', after: 'maglev' });
  });
});
