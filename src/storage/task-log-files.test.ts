import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_ROW_BYTES, TaskLogFiles } from './task-log-files.ts';

const root = mkdtempSync(join(tmpdir(), 'kiln-logs-'));
/** Every store a test made, so that the files they keep open are closed, as a server does. */
const stores: TaskLogFiles[] = [];
afterAll(async () => {
  for (const store of stores) await store.closeAll();
  rmSync(root, { recursive: true, force: true });
});

function newStore(): TaskLogFiles {
  const store = new TaskLogFiles(root);
  stores.push(store);
  return store;
}

const at = new Date('2026-01-02T03:04:05.678Z');
const rows = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({ time: at, content: `line ${from + i} ü` }));

describe('task log files', () => {
  it('appends in order, refuses a gap, and reads any page', async () => {
    const store = newStore();
    expect(await store.rowCount(300)).toBe(0);
    expect(await store.append(300, 0, rows(0, 3))).toBe(3);
    expect(await store.append(300, 5, rows(5, 2))).toBe(3);
    expect(await store.append(300, 3, rows(3, 4))).toBe(7);
    expect(await store.readRows(300, 0, 2)).toEqual([
      '2026-01-02T03:04:05.678Z line 0 ü',
      '2026-01-02T03:04:05.678Z line 1 ü',
    ]);
    expect(await store.readRows(300, 5, 10)).toEqual([
      '2026-01-02T03:04:05.678Z line 5 ü',
      '2026-01-02T03:04:05.678Z line 6 ü',
    ]);
    expect(await store.readRows(300, 7, 10)).toEqual([]);
  });

  it('keeps rows intact under concurrent appends of the same position', async () => {
    const store = newStore();
    const results = await Promise.all([
      store.append(301, 0, rows(0, 2)),
      store.append(301, 0, rows(0, 2)),
    ]);
    expect(results).toEqual([2, 2]);
    expect(await store.readRows(301, 0, 5)).toHaveLength(2);
  });

  it('writes each row time as toISOString does, across seconds and years', async () => {
    const store = newStore();
    const times = [
      new Date('2026-01-02T03:04:05.001Z'),
      new Date('2026-01-02T03:04:05.999Z'),
      new Date('2026-01-02T03:04:06.000Z'),
      new Date('1969-12-31T23:59:59.500Z'),
      new Date('+012345-06-07T08:09:10.011Z'),
      new Date('2026-01-02T03:04:06.040Z'),
    ];
    const written = times.map((time, i) => ({ time, content: `row ${i}` }));
    expect(await store.append(302, 0, written)).toBe(times.length);
    expect(await store.readRows(302, 0, 10)).toEqual(
      times.map((time, i) => `${time.toISOString()} row ${i}`),
    );
  });

  it('reads back every batch as written, whatever its characters and size', async () => {
    const store = newStore();
    let taskId = 400;
    // Batches from a few bytes to well past the store's 64 KiB encoding buffer.
    const content = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.string({ unit: 'grapheme', minLength: 500, maxLength: 3000 }),
    );
    const batches = fc.array(fc.array(content, { minLength: 1, maxLength: 60 }), {
      minLength: 1,
      maxLength: 4,
    });
    await fc.assert(
      fc.asyncProperty(batches, async (sent) => {
        taskId += 1;
        let count = 0;
        for (const batch of sent) {
          const written = batch.map((text) => ({ time: at, content: text }));
          count = await store.append(taskId, count, written);
        }
        const expected = sent.flat().map((text) => `${at.toISOString()} ${text}`);
        expect(count).toBe(expected.length);
        expect(await store.readRows(taskId, 0, expected.length)).toEqual(expected);
        await store.close(taskId);
      }),
      { numRuns: 40 },
    );
  });

  it('cuts a row at the byte limit and keeps the rows after it whole', async () => {
    const store = newStore();
    const long = '€'.repeat(MAX_ROW_BYTES);
    const written = [long, 'after'].map((content) => ({ time: at, content }));
    expect(await store.append(303, 0, written)).toBe(2);
    const [first, second] = await store.readRows(303, 0, 2);
    // A character is never split: the cut falls on the last whole € within the limit.
    expect(first).toBe(`${at.toISOString()} ${'€'.repeat(Math.floor(MAX_ROW_BYTES / 3))}`);
    expect(second).toBe(`${at.toISOString()} after`);
  });

  it('keeps only the leading rows that fit a limit, exactly up to it (generated)', async () => {
    const store = newStore();
    let taskId = 5000;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.string({ unit: 'binary', maxLength: 40 }), { maxLength: 12 }), {
          maxLength: 6,
        }),
        fc.integer({ min: 0, max: 1500 }),
        fc.integer({ min: 0, max: 40 }),
        async (batches, bytes, rowLimit) => {
          const task = taskId++;
          const limit = { bytes, rows: rowLimit };
          const kept: string[] = [];
          for (const batch of batches) {
            const before = await store.rowCount(task);
            const count = await store.append(
              task,
              before,
              batch.map((content) => ({ time: at, content })),
              limit,
            );
            kept.push(...batch.slice(0, count - before));
            expect(await store.byteCount(task)).toBeLessThanOrEqual(bytes);
            expect(count).toBeLessThanOrEqual(rowLimit);
            // A row was left out only because it would have passed a limit.
            const next = batch[count - before];
            if (next !== undefined) {
              const size = 24 + 1 + Buffer.byteLength(next) + 1;
              const full = count >= rowLimit || (await store.byteCount(task)) + size > bytes;
              expect(full).toBe(true);
            }
          }
          const read = await store.readRows(task, 0, 1000);
          expect(read.map((line) => line.slice(25))).toEqual(kept);
        },
      ),
      { numRuns: 100 },
    );
  });
});
