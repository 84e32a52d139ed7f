import { describe, expect, it } from 'vitest';
import { BoundedMap } from './bounded-map.ts';
import { CacheRegistry } from './cache-registry.ts';
import { StampedMemo } from './stamped-memo.ts';

const declaration = { key: 'k', bound: '2 entries' } as const;

describe('CacheRegistry', () => {
  it("reads each cache's entries, hits and misses as its lookups went", async () => {
    const registry = new CacheRegistry();
    const map = registry.add(
      { ...declaration, name: 'map', freshness: 'immutable' },
      new BoundedMap<string, number>(2),
    );
    const memo = registry.add(
      { ...declaration, name: 'memo', freshness: 'change-stamp' },
      new StampedMemo<string, number>(2),
    );
    map.set('a', 1);
    map.get('a');
    map.get('b');
    await memo.read('x', 1, async () => 10);
    await memo.read('x', 1, async () => 11);
    // A moved stamp is a miss, although the key is held.
    await memo.read('x', 2, async () => 12);
    const readings = registry.readings().filter((r) => r.name === 'map' || r.name === 'memo');
    expect(readings.map(({ name, size, hits, misses }) => ({ name, size, hits, misses }))).toEqual([
      { name: 'map', size: 1, hits: 1, misses: 1 },
      { name: 'memo', size: 1, hits: 1, misses: 2 },
    ]);
  });

  it('refuses a name declared twice', () => {
    const registry = new CacheRegistry();
    const cache = { ...declaration, name: 'twice', freshness: 'ttl' } as const;
    registry.add(cache, new BoundedMap(1));
    expect(() => registry.add(cache, new BoundedMap(1))).toThrow('declared twice');
  });

  it('reports the caches each server declares under one name as one, their figures summed', () => {
    const registry = new CacheRegistry();
    const cache = { ...declaration, name: 'each', freshness: 'immutable' } as const;
    const first = registry.addEach(cache, new BoundedMap<string, number>(2));
    const second = registry.addEach(cache, new BoundedMap<string, number>(2));
    first.set('a', 1);
    first.get('a');
    second.set('b', 2);
    second.set('c', 3);
    second.get('z');
    const reading = registry.readings().find((r) => r.name === 'each');
    expect(reading).toMatchObject({ size: 3, hits: 1, misses: 1 });
    expect(() => registry.add(cache, new BoundedMap(1))).toThrow('declared twice');
    registry.add({ ...cache, name: 'single' }, new BoundedMap(1));
    expect(() => registry.addEach({ ...cache, name: 'single' }, new BoundedMap(1))).toThrow(
      'declared twice',
    );
  });
});
