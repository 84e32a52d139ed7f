import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SizedLru } from './sized-lru.ts';

describe('SizedLru', () => {
  it('forgets the least recently used entries until the total fits', () => {
    const lru = new SizedLru<string, string>(10);
    lru.set('a', 'A', 4);
    lru.set('b', 'B', 4);
    expect(lru.get('a')).toBe('A');
    lru.set('c', 'C', 4);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe('A');
    expect(lru.get('c')).toBe('C');
    expect(lru.held).toBe(8);
  });

  it('keeps nothing larger than its bound, and drops what the key held before', () => {
    const lru = new SizedLru<string, string>(10);
    lru.set('a', 'small', 2);
    lru.set('a', 'huge', 11);
    expect(lru.get('a')).toBeUndefined();
    expect(lru.held).toBe(0);
    expect(new SizedLru<string, string>(0).get('x')).toBeUndefined();
  });

  it('holds what a reference list of recent uses holds, within its bound, after any operations', () => {
    const op = fc.oneof(
      fc.record({ set: fc.integer({ min: 0, max: 5 }), size: fc.integer({ min: 0, max: 12 }) }),
      fc.record({ get: fc.integer({ min: 0, max: 5 }) }),
      fc.record({ del: fc.integer({ min: 0, max: 5 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const lru = new SizedLru<number, string>(20);
        // Most recently used last.
        let model: { key: number; size: number; value: string }[] = [];
        ops.forEach((o, step) => {
          if ('set' in o) {
            lru.set(o.set, `v${step}`, o.size);
            model = model.filter((entry) => entry.key !== o.set);
            if (o.size <= 20) model.push({ key: o.set, size: o.size, value: `v${step}` });
            while (model.reduce((sum, entry) => sum + entry.size, 0) > 20) model.shift();
          } else if ('get' in o) {
            const found = model.find((entry) => entry.key === o.get);
            expect(lru.get(o.get)).toBe(found?.value);
            if (found) model = [...model.filter((entry) => entry !== found), found];
          } else {
            expect(lru.delete(o.del)).toBe(model.some((entry) => entry.key === o.del));
            model = model.filter((entry) => entry.key !== o.del);
          }
          expect(lru.held).toBe(model.reduce((sum, entry) => sum + entry.size, 0));
          expect(lru.count).toBe(model.length);
          expect(lru.held).toBeLessThanOrEqual(20);
        });
      }),
    );
  });
});
