import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tightenDataDir, widerThanPrivate } from './private-modes.ts';

/** A data directory tree, each path given a mode. */
const tree = fc.array(
  fc.record({
    dir: fc.constantFrom('', 'ci-logs', 'ci-logs/1', 'keys', 'repositories', 'repositories/a'),
    file: fc.constantFrom('kiln.db', 'kiln.db-wal', 'log', 'key.pem'),
    mode: fc.integer({ min: 0o400, max: 0o777 }),
    dirMode: fc.integer({ min: 0o700, max: 0o777 }),
  }),
  { maxLength: 8 },
);

describe('tightenDataDir', () => {
  it('leaves nothing that group or others may open, and the owner bits as they were', async () => {
    await fc.assert(
      fc.asyncProperty(tree, fc.integer({ min: 0o700, max: 0o777 }), async (paths, rootMode) => {
        const root = mkdtempSync(path.join(tmpdir(), 'kiln-modes-'));
        try {
          const owner = new Map<string, number>();
          for (const { dir, file, mode, dirMode } of paths) {
            mkdirSync(path.join(root, dir), { recursive: true });
            if (dir) chmodSync(path.join(root, dir), dirMode);
            const target = path.join(root, dir, file);
            writeFileSync(target, 'x');
            chmodSync(target, mode);
            owner.set(target, mode & 0o700);
          }
          chmodSync(root, rootMode);
          await tightenDataDir(root);
          expect(await widerThanPrivate(root)).toEqual([]);
          for (const [file, bits] of owner) expect(statSync(file).mode & 0o777).toBe(bits);
          expect(statSync(root).mode & 0o777).toBe(0o700);
        } finally {
          rmSync(root, { recursive: true, force: true });
        }
      }),
      { numRuns: 40 },
    );
  });

  it('does not walk into a repository, whose own 0700 directory shuts others out', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'kiln-modes-'));
    try {
      const repo = path.join(root, 'repositories', 'alice', 'tools.git');
      mkdirSync(path.join(repo, 'objects'), { recursive: true });
      writeFileSync(path.join(repo, 'objects', 'x'), 'x', { mode: 0o444 });
      chmodSync(repo, 0o755);
      chmodSync(root, 0o700);
      chmodSync(path.join(root, 'repositories'), 0o700);
      chmodSync(path.join(root, 'repositories', 'alice'), 0o700);
      expect((await widerThanPrivate(root)).map((wide) => wide.path)).toEqual([repo]);
      await tightenDataDir(root);
      expect(statSync(repo).mode & 0o777).toBe(0o700);
      expect(statSync(path.join(repo, 'objects', 'x')).mode & 0o777).toBe(0o444);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
