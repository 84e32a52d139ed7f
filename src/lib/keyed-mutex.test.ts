import { describe, expect, it } from 'vitest';
import { KeyedMutex } from './keyed-mutex.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('KeyedMutex', () => {
  it('serialises work for one key and keeps going after a failure', async () => {
    const mutex = new KeyedMutex();
    const order: string[] = [];
    const a = mutex.run('k', async () => {
      await pause(20);
      order.push('a');
    });
    const b = mutex.run('k', async () => {
      order.push('b');
      throw new Error('boom');
    });
    const c = mutex.run('k', async () => {
      order.push('c');
      return 3;
    });
    await a;
    await expect(b).rejects.toThrow('boom');
    expect(await c).toBe(3);
    expect(order).toEqual(['a', 'b', 'c']);
  });

  it('lets different keys run side by side', async () => {
    const mutex = new KeyedMutex();
    const order: string[] = [];
    await Promise.all([
      mutex.run('x', async () => {
        await pause(20);
        order.push('x');
      }),
      mutex.run('y', async () => {
        order.push('y');
      }),
    ]);
    expect(order).toEqual(['y', 'x']);
  });
});
