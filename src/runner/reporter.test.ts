import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import type { Client } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import { type UpdateLogRequest, UpdateLogRequestSchema } from '../gen/runner/v1/messages_pb.js';
import type { RunnerService } from '../gen/runner/v1/services_pb.js';
import { DEFAULT_TIMING, TaskReporter } from './reporter.ts';

type LogCall = { index: number; rows: number; noMore: boolean };

/** An in-memory server side of UpdateLog/UpdateTask that stores rows as a server does. */
function memoryServer(options: { failFirst?: number; delayMs?: number } = {}) {
  const calls: LogCall[] = [];
  let stored = 0;
  let failures = options.failFirst ?? 0;
  const client = {
    updateLog: async (sent: UpdateLogRequest) => {
      await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 1));
      // What a server decodes from the bytes this request puts on the wire.
      const bytes = toBinary(UpdateLogRequestSchema, create(UpdateLogRequestSchema, sent));
      const request = fromBinary(UpdateLogRequestSchema, bytes);
      if (failures-- > 0) throw new Error('server unreachable');
      calls.push({
        index: Number(request.index),
        rows: request.rows.length,
        noMore: request.noMore,
      });
      const end = Number(request.index) + request.rows.length;
      if (Number(request.index) <= stored && end > stored) stored = end;
      return { ackIndex: BigInt(stored) };
    },
    updateTask: async () => ({ sentOutputs: [] }),
  } as unknown as Client<typeof RunnerService>;
  return { client, calls, stored: () => stored };
}

function reporter(client: Client<typeof RunnerService>) {
  return new TaskReporter({
    client,
    taskId: 1n,
    stepCount: 1,
    onCancel: () => {},
    log: () => {},
    timing: { ...DEFAULT_TIMING, retryMs: 5 },
  });
}

describe('TaskReporter log batches', () => {
  it('sends a fast log in full batches, not whatever arrived during the last call', async () => {
    const server = memoryServer({ delayMs: 5 });
    const r = reporter(server.client);
    r.start();
    r.stepStarted(0);
    for (let i = 0; i < 10_000; i++) {
      r.line(`line ${i}`);
      if (i % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    r.stepFinished(0, 'success');
    await r.finish('success');
    // Plus the empty row that carries no_more when the step end's flush took the last lines.
    expect([10_000, 10_001]).toContain(server.stored());
    // The first call goes out at the step's start, the last ones with what is left at its end.
    const full = server.calls.filter((call) => call.index > 0 && call.index + call.rows < 10_000);
    expect(full.every((call) => call.rows >= DEFAULT_TIMING.batchRows)).toBe(true);
    expect(server.calls.length).toBeLessThanOrEqual(10_000 / DEFAULT_TIMING.batchRows + 2);
  });

  it('sends a backlog in bounded requests, with no_more only on the last one', async () => {
    const server = memoryServer({ failFirst: 3 });
    const r = reporter(server.client);
    r.start();
    for (let i = 0; i < 12_000; i++) r.line(`backlog line ${i}`);
    await r.finish('success');
    expect(server.stored()).toBe(12_000);
    expect(Math.max(...server.calls.map((call) => call.rows))).toBeLessThanOrEqual(5000);
    expect(server.calls.filter((call) => call.noMore)).toHaveLength(1);
    expect(server.calls.at(-1)?.noMore).toBe(true);
  });

  it('never ends with an empty no_more batch, even when the step-end flush is still out', async () => {
    const server = memoryServer({ delayMs: 20 });
    const r = reporter(server.client);
    r.stepStarted(0);
    for (let i = 0; i < 300; i++) r.line(`line ${i}`);
    r.stepFinished(0, 'success');
    await new Promise((resolve) => setTimeout(resolve, 5));
    await r.finish('success');
    const last = server.calls.at(-1);
    expect(last?.noMore).toBe(true);
    expect(last?.rows).toBeGreaterThan(0);
    expect(server.stored()).toBe(301);
  });

  it('keeps a request of long lines within about a megabyte', async () => {
    const server = memoryServer({ failFirst: 1 });
    const r = reporter(server.client);
    const long = 'x'.repeat(10_000);
    for (let i = 0; i < 200; i++) r.line(long);
    await r.finish('success');
    expect(server.stored()).toBe(200);
    expect(Math.max(...server.calls.map((call) => call.rows)) * long.length).toBeLessThanOrEqual(
      1024 * 1024,
    );
  });

  it('cuts a line longer than a server stores, so that its request stays within the cap', async () => {
    const sizes: number[] = [];
    const client = {
      updateLog: async (sent: UpdateLogRequest) => {
        const bytes = toBinary(UpdateLogRequestSchema, create(UpdateLogRequestSchema, sent));
        sizes.push(bytes.length);
        const request = fromBinary(UpdateLogRequestSchema, bytes);
        return { ackIndex: request.index + BigInt(request.rows.length) };
      },
      updateTask: async () => ({ sentOutputs: [] }),
    } as unknown as Client<typeof RunnerService>;
    const r = reporter(client);
    r.line('é'.repeat(3 * 1024 * 1024));
    r.line(`${'a'.repeat(64 * 1024 - 1)}😀tail`);
    await r.finish('success');
    expect(Math.max(...sizes)).toBeLessThan(2 * 1024 * 1024);
  });
});
