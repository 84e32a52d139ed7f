import { describe, expect, it } from 'vitest';
import { KeptTexts, type ReadText } from './kept-texts.ts';

/** A table of texts by id, counting the ids it was asked for. */
function table(texts: Record<string, ReadText>) {
  const asked: string[][] = [];
  const read = async (ids: string[]) => {
    asked.push(ids);
    return ids.flatMap((id) => (texts[id] ? [texts[id]] : []));
  };
  return { asked, read };
}

describe('KeptTexts', () => {
  it('reads only the texts it does not hold, and none the second time', async () => {
    const kept = new KeptTexts(1000);
    const { asked, read } = table({
      a: { id: 'a', text: 'alpha', hash: 'ha' },
      b: { id: 'b', text: 'beta', hash: 'hb' },
    });
    const rows = [
      { id: 'a', hash: 'ha' },
      { id: 'b', hash: 'hb' },
    ];
    expect(await kept.of(rows, read)).toEqual(['alpha', 'beta']);
    expect(await kept.of(rows, read)).toEqual(['alpha', 'beta']);
    expect(await kept.of([{ id: 'c', hash: 'hb' }], read)).toEqual(['beta']);
    expect(asked).toEqual([['a', 'b']]);
  });

  it('keeps a text under the hash read with it, not the one its row was read with', async () => {
    const kept = new KeptTexts(1000);
    // The row changed between the two reads: its text now is "new", hashed "h2".
    const { read } = table({ a: { id: 'a', text: 'new', hash: 'h2' } });
    expect(await kept.of([{ id: 'a', hash: 'h1' }], read)).toEqual(['new']);
    const { asked, read: readAgain } = table({ a: { id: 'a', text: 'old', hash: 'h1' } });
    expect(await kept.of([{ id: 'a', hash: 'h1' }], readAgain)).toEqual(['old']);
    expect(await kept.of([{ id: 'a', hash: 'h2' }], readAgain)).toEqual(['new']);
    expect(asked).toEqual([['a']]);
  });

  it('reads a row gone meanwhile as empty, and never keeps a text without a hash', async () => {
    const kept = new KeptTexts(1000);
    const { asked, read } = table({ a: { id: 'a', text: 'unhashed', hash: '' } });
    expect(await kept.of([{ id: 'gone', hash: 'h' }], read)).toEqual(['']);
    expect(await kept.of([{ id: 'a', hash: '' }], read)).toEqual(['unhashed']);
    expect(await kept.of([{ id: 'a', hash: '' }], read)).toEqual(['unhashed']);
    expect(asked).toEqual([['gone'], ['a'], ['a']]);
  });
});
