import { describe, expect, it } from 'vitest';
import { foldId, newId } from './ids.ts';

describe('foldId', () => {
  it('is stable for one uuid', () => {
    const id = newId();
    expect(foldId(id)).toBe(foldId(id));
    expect(foldId(id.toUpperCase())).toBe(foldId(id));
  });

  it('stays a positive safe integer', () => {
    for (let i = 0; i < 2000; i++) {
      const folded = foldId(newId());
      expect(Number.isSafeInteger(folded)).toBe(true);
      expect(folded).toBeGreaterThan(0);
      expect(folded).toBeLessThanOrEqual(Number.MAX_SAFE_INTEGER);
    }
  });

  it('separates different uuids', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 5000; i++) seen.add(foldId(newId()));
    expect(seen.size).toBe(5000);
  });
});
