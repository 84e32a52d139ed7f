import { describe, expect, it } from 'vitest';
import { StampedMemo } from './stamped-memo.ts';

describe('StampedMemo', () => {
  it('hands a value back while the stamp it was read at holds', () => {
    const memo = new StampedMemo<string, number>(10);
    memo.set('a', 1, 42);
    expect(memo.get('a', 1)).toBe(42);
    expect(memo.get('a', 2)).toBeUndefined();
    expect(memo.get('b', 1)).toBeUndefined();
  });

  it('keeps nothing when there is no stamp', () => {
    const memo = new StampedMemo<string, number>(10);
    memo.set('a', undefined, 42);
    expect(memo.get('a', undefined)).toBeUndefined();
    memo.set('a', 3, 42);
    expect(memo.get('a', undefined)).toBeUndefined();
  });

  it('replaces an entry read at an older stamp', () => {
    const memo = new StampedMemo<string, string>(10);
    memo.set('a', 1, 'old');
    memo.set('a', 2, 'new');
    expect(memo.get('a', 2)).toBe('new');
    expect(memo.get('a', 1)).toBeUndefined();
  });

  it('forgets the oldest keys beyond its limit', () => {
    const memo = new StampedMemo<number, number>(2);
    for (const key of [1, 2, 3]) memo.set(key, 0, key);
    expect(memo.get(1, 0)).toBeUndefined();
    expect(memo.get(2, 0)).toBe(2);
    expect(memo.get(3, 0)).toBe(3);
  });

  it('reads through: loads once per stamp, and keeps neither what throws nor without a stamp', async () => {
    const memo = new StampedMemo<string, string | null>(10);
    let loads = 0;
    const load = async () => {
      loads += 1;
      return loads === 1 ? null : `value ${loads}`;
    };
    expect(await memo.read('a', 1, load)).toBeNull();
    expect(await memo.read('a', 1, load)).toBeNull();
    expect(loads).toBe(1);
    expect(await memo.read('a', 2, load)).toBe('value 2');
    expect(await memo.read('a', undefined, load)).toBe('value 3');
    expect(await memo.read('a', undefined, load)).toBe('value 4');
    await expect(memo.read('b', 2, () => Promise.reject(new Error('gone')))).rejects.toThrow();
    expect(memo.get('b', 2)).toBeUndefined();
  });

  it('keeps what a lookup finds and never an absence', async () => {
    const memo = new StampedMemo<string, string>(10);
    const rows = new Map<string, string>();
    let loads = 0;
    const find = async (key: string) => {
      loads += 1;
      return rows.get(key);
    };
    expect(await memo.readFound('a', 1, () => find('a'))).toBeUndefined();
    rows.set('a', 'inserted');
    // Same stamp: an insert need not move it, and the miss was not kept.
    expect(await memo.readFound('a', 1, () => find('a'))).toBe('inserted');
    expect(await memo.readFound('a', 1, () => find('a'))).toBe('inserted');
    expect(loads).toBe(2);
  });
});
