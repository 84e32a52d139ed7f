import { describe, expect, it } from 'vitest';
import { ownCopy } from './own-copy.ts';

describe('ownCopy', () => {
  it('copies a view on a shared slab into memory of its own', () => {
    const pooled = Buffer.from('a short answer');
    expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.length);
    const own = ownCopy(pooled);
    expect(own.toString()).toBe('a short answer');
    expect(own.buffer.byteLength).toBe(own.length);
  });

  it('hands back a buffer that already owns all of its memory', () => {
    const alone = Buffer.allocUnsafeSlow(4).fill(1);
    expect(ownCopy(alone)).toBe(alone);
  });
});
