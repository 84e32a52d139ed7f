import { describe, expect, it } from 'vitest';
import { mapLimited } from './map-limited.ts';

describe('mapLimited', () => {
  it('keeps the order of the input and never has more than the limit in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const items = Array.from({ length: 50 }, (_, index) => index);
    const results = await mapLimited(items, 4, async (item) => {
      inFlight++;
      most = Math.max(most, inFlight);
      // Later items finish first, so order comes from the index, not from completion.
      await new Promise((resolve) => setTimeout(resolve, (50 - item) % 7));
      inFlight--;
      return item * 2;
    });
    expect(results).toEqual(items.map((item) => item * 2));
    expect(most).toBe(4);
  });

  it('answers an empty list at once and rejects with the first failure', async () => {
    expect(await mapLimited([], 8, async () => 1)).toEqual([]);
    await expect(
      mapLimited([1, 2, 3], 2, async (item) => {
        if (item === 2) throw new Error('two');
        return item;
      }),
    ).rejects.toThrow('two');
  });
});
