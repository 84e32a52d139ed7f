import { describe, expect, it } from 'vitest';
import { ConcurrencyGate } from './concurrency-gate.ts';

describe('ConcurrencyGate', () => {
  it('admits up to maxActive at once and the next waiter when a slot frees', async () => {
    const gate = new ConcurrencyGate({ maxActive: 2, maxWaiting: 1, maxWaitMs: 5000 });
    const first = await gate.enter();
    const second = await gate.enter();
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    const third = gate.enter();
    expect(gate.waiting).toBe(1);
    first?.();
    first?.(); // twice frees once
    expect(await third).toBeDefined();
    expect(gate.active).toBe(2);
    expect(gate.waiting).toBe(0);
  });

  it('turns away at once when the queue is full', async () => {
    const gate = new ConcurrencyGate({ maxActive: 1, maxWaiting: 1, maxWaitMs: 5000 });
    const held = await gate.enter();
    const queued = gate.enter();
    expect(await gate.enter()).toBeUndefined();
    held?.();
    (await queued)?.();
    expect(gate.active).toBe(0);
  });

  it('turns a waiter away after maxWaitMs and forgets it', async () => {
    const gate = new ConcurrencyGate({ maxActive: 1, maxWaiting: 4, maxWaitMs: 20 });
    const held = await gate.enter();
    expect(await gate.enter()).toBeUndefined();
    expect(gate.waiting).toBe(0);
    held?.();
    expect(gate.active).toBe(0);
    expect(await gate.enter()).toBeDefined();
  });

  it('serves waiters in order of arrival', async () => {
    const gate = new ConcurrencyGate({ maxActive: 1, maxWaiting: 3, maxWaitMs: 5000 });
    const held = await gate.enter();
    const order: number[] = [];
    const waits = [1, 2, 3].map((n) =>
      gate.enter().then((release) => {
        order.push(n);
        release?.();
      }),
    );
    held?.();
    await Promise.all(waits);
    expect(order).toEqual([1, 2, 3]);
  });
});

describe('ConcurrencyGate.retryAfterSeconds', () => {
  it('is the longest wait in whole seconds, at least one', () => {
    const gate = (maxWaitMs: number) =>
      new ConcurrencyGate({ maxActive: 1, maxWaiting: 0, maxWaitMs });
    expect(gate(10_000).retryAfterSeconds).toBe(10);
    expect(gate(2_500).retryAfterSeconds).toBe(3);
    expect(gate(0).retryAfterSeconds).toBe(1);
  });
});
