import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { TaskLogFiles } from './task-log-files.ts';

const root = mkdtempSync(join(tmpdir(), 'kiln-log-window-'));
const store = new TaskLogFiles(root);
afterAll(async () => {
  await store.closeAll();
  rmSync(root, { recursive: true, force: true });
});

const at = new Date('2026-01-02T03:04:05.678Z');
const content = fc
  .array(fc.constantFrom('a', '<', 'é', '😀', ' ', '\t'), { maxLength: 300 })
  .map((parts) => parts.join(''));
const stored = (line: string) => Buffer.byteLength(line, 'utf8') + 1;

let nextTask = 1;

describe('windows of a task log', () => {
  it('read contiguous rows within the row and byte bounds, the newest or from a row', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(content, { minLength: 0, maxLength: 60 }),
        fc.nat(70),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 3000 }),
        fc.boolean(),
        async (contents, row, maxRows, maxBytes, forward) => {
          const task = nextTask++;
          await store.append(
            task,
            0,
            contents.map((line) => ({ time: at, content: line })),
          );
          const all = await store.readRows(task, 0, contents.length);
          const where = forward ? { from: row } : { before: row };
          const window = await store.readWindow(task, where, maxRows, maxBytes);
          // Rows appended between a window and the reading of its rows are not among them.
          await store.append(task, contents.length, [{ time: at, content: 'later' }]);
          const rows = await window.readRows();
          expect(window.total).toBe(contents.length);
          expect(rows).toEqual(all.slice(window.from, window.from + rows.length));
          expect(rows.length).toBeLessThanOrEqual(maxRows);
          const size = rows.reduce((sum, line) => sum + stored(line), 0);
          if (rows.length > 1) expect(size).toBeLessThanOrEqual(maxBytes);
          // Its place in the stored bytes (an empty window has none): after every row before
          // it, as long as its rows.
          expect(window.count).toBe(rows.length);
          const before = all.slice(0, window.from).reduce((sum, line) => sum + stored(line), 0);
          if (window.count > 0) expect(window.span).toEqual({ start: before, end: before + size });
          const edge = Math.min(row, contents.length);
          if (forward) {
            expect(window.from).toBe(edge);
            if (edge < contents.length) expect(rows.length).toBeGreaterThan(0);
          } else {
            expect(window.from + rows.length).toBe(edge);
            if (edge > 0) expect(rows.length).toBeGreaterThan(0);
          }
          // The raw log is every stored row, each with its newline, streamed.
          const raw = await text(await store.rawLog(task));
          const now = await store.readRows(task, 0, contents.length + 1);
          expect(raw).toBe(now.map((line) => `${line}\n`).join(''));
        },
      ),
      { numRuns: 150 },
    );
  });
});
