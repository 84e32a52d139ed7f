import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { closest, editDistance } from './edit-distance.ts';

describe('editDistance', () => {
  it('counts insertions, deletions and substitutions', () => {
    expect(editDistance('', '')).toBe(0);
    expect(editDistance('PROT', 'PORT')).toBe(2);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('is a metric: zero only for equal strings, symmetric, bounded by the longer length', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (a, b) => {
        const d = editDistance(a, b);
        expect(d === 0).toBe(a === b);
        expect(editDistance(b, a)).toBe(d);
        expect(d).toBeLessThanOrEqual(Math.max(a.length, b.length));
        expect(d).toBeGreaterThanOrEqual(Math.abs(a.length - b.length));
      }),
    );
  });
});

describe('closest', () => {
  it('picks the nearest candidate', () => {
    const keys = ['SERVICE_HTTP_PORT', 'SERVICE_HTTP_HOST', 'SERVICE_DATA_DIR'];
    expect(closest('SERVICE_HTTP_PROT', keys)).toBe('SERVICE_HTTP_PORT');
    expect(closest('SERVICE_DATADIR', keys)).toBe('SERVICE_DATA_DIR');
    expect(closest('x', [])).toBeUndefined();
  });
});
