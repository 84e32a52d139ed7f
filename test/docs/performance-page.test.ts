/**
 * docs/performance.md is rendered whole from bench/run.ts and the results recorded in it. A
 * passage written into the page alone would vanish at the next bench run, so the page must be
 * exactly what bench/run.ts renders from its own results.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

describe('the performance page', () => {
  it('is what bench/run.ts renders from the recorded results', () => {
    const run = spawnSync(process.execPath, ['bench/run.ts', '--only', 'nothing', '--check'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(run.stderr).not.toContain('differs');
    expect(run.status).toBe(0);
  });
});
