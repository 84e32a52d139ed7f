import { describe, expect, it } from 'vitest';
import { contentHash } from '../lib/content-hash.ts';
import { KeptTexts, type ReadText } from './kept-texts.ts';

/** A table of texts by id, counting the ids it was asked for. */
function table(texts: Record<string, string>) {
  const asked: string[][] = [];
  const read = async (ids: string[]): Promise<ReadText[]> => {
    asked.push(ids);
    return ids.flatMap((id) => (texts[id] === undefined ? [] : [{ id, text: texts[id] }]));
  };
  return { asked, read };
}

const ref = (id: string, text: string) => ({ id, hash: contentHash(text) });

describe('KeptTexts', () => {
  it('reads only the texts it does not hold, and none the second time', async () => {
    const kept = new KeptTexts(1000);
    const { asked, read } = table({ a: 'alpha', b: 'beta' });
    const rows = [ref('a', 'alpha'), ref('b', 'beta')];
    expect(await kept.of(rows, read)).toEqual(['alpha', 'beta']);
    expect(await kept.of(rows, read)).toEqual(['alpha', 'beta']);
    // Another row with the same text shares it.
    expect(await kept.of([ref('c', 'beta')], read)).toEqual(['beta']);
    expect(asked).toEqual([['a', 'b']]);
  });

  it('keeps a text under its own hash, whatever hash its row was read with', async () => {
    const kept = new KeptTexts(1000);
    // The row changed between the two reads: it was read with the hash of "old", then "new".
    const { read } = table({ a: 'new' });
    expect(await kept.of([ref('a', 'old')], read)).toEqual(['new']);
    const { asked, read: readAgain } = table({ a: 'old' });
    expect(await kept.of([ref('a', 'old')], readAgain)).toEqual(['old']);
    expect(await kept.of([ref('a', 'new')], readAgain)).toEqual(['new']);
    expect(asked).toEqual([['a']]);
  });

  it('reads a row gone meanwhile as empty, and a row without a hash every time', async () => {
    const kept = new KeptTexts(1000);
    const { asked, read } = table({ a: 'unhashed' });
    expect(await kept.of([ref('gone', 'x')], read)).toEqual(['']);
    expect(await kept.of([{ id: 'a', hash: '' }], read)).toEqual(['unhashed']);
    expect(await kept.of([{ id: 'a', hash: '' }], read)).toEqual(['unhashed']);
    expect(asked).toEqual([['gone'], ['a'], ['a']]);
  });
});
