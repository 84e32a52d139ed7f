import { describe, expect, it } from 'vitest';
import { lazily } from './lazily.ts';

describe('lazily', () => {
  it('makes nothing until first asked', () => {
    let made = 0;
    lazily(async () => ++made);
    expect(made).toBe(0);
  });

  it('makes the value once and shares it, concurrent first callers included', async () => {
    let made = 0;
    const value = lazily(async () => ({ serial: ++made }));
    const [a, b] = await Promise.all([value(), value()]);
    const c = await value();
    expect(made).toBe(1);
    expect(a).toBe(b);
    expect(c).toBe(a);
  });

  it('tries again after a failure instead of keeping the rejection', async () => {
    let attempts = 0;
    const value = lazily(async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('not yet');
      return 'ready';
    });
    await expect(value()).rejects.toThrow('not yet');
    await expect(value()).resolves.toBe('ready');
    await expect(value()).resolves.toBe('ready');
    expect(attempts).toBe(2);
  });
});
