import { describe, expect, it } from 'vitest';
import type { ObjectData } from './cat-file-process.ts';
import { KeptAnswers, KeptAnswersTally, type KeptQuestion } from './kept-answers.ts';

const SHA = 'a'.repeat(40);

/** The question for the contents of the path `name` under the commit `id`. */
function question(name: string, id = SHA): KeptQuestion {
  const asked = KeptAnswers.keyOf('contents', `${id}:${name}`, Number.POSITIVE_INFINITY);
  if (!asked) throw new Error('an id with a path is a name whose answer can be kept');
  return asked;
}

function blob(bytes: number): ObjectData {
  return {
    sha: SHA,
    type: 'blob',
    sizeBytes: bytes,
    content: Buffer.alloc(bytes),
    truncated: false,
  };
}

describe('KeptAnswers', () => {
  it.each([SHA, 'b'.repeat(64), `${SHA}^{tree}`, `${SHA}^{}`, `${SHA}:src/a b.ts`])(
    'keeps the answer to %s',
    (name) => {
      expect(KeptAnswers.keyOf('contents', name, 100)).toBeDefined();
    },
  );

  it.each([
    'main',
    'HEAD',
    'main:README.md',
    SHA.slice(0, 12),
    `${SHA}~1`,
    `refs/heads/${SHA}`,
    `${SHA.toUpperCase()}`,
  ])('never keeps the answer to %s', (name) => {
    expect(KeptAnswers.keyOf('info', name, 0)).toBeUndefined();
  });

  it('tells questions with other caps or kinds apart', () => {
    const keys = new Set([
      KeptAnswers.keyOf('info', SHA, 0)?.key,
      KeptAnswers.keyOf('contents', SHA, 0)?.key,
      KeptAnswers.keyOf('contents', SHA, 100)?.key,
    ]);
    expect(keys.size).toBe(3);
  });

  it('holds at most half a megabyte, least recently used out first, and no large answer', () => {
    const kept = new KeptAnswers();
    kept.keep(question('large'), blob(100 * 1024));
    expect(kept.get(question('large'))).toBeUndefined();
    for (let n = 0; n < 20; n++) {
      kept.keep(question(`k${n}`), blob(32 * 1024));
      // The first stays in use, so it is never the oldest.
      expect(kept.get(question('k0'))).toBeDefined();
    }
    const left = Array.from({ length: 20 }, (_, n) => kept.get(question(`k${n}`)) !== undefined);
    expect(left.filter(Boolean).length).toBe(15);
    expect(left.slice(0, 1)).toEqual([true]);
    expect(left.slice(1, 6)).toEqual([false, false, false, false, false]);
  });

  it('keeps no answer to hex of the other id length, which git read as a ref', () => {
    const kept = new KeptAnswers();
    const refLike = 'c'.repeat(64);
    // A SHA-1 repository answered a 64-hex name with a 40-hex id: a branch of that name.
    const asRef = KeptAnswers.keyOf('info', `${refLike}^{commit}`, 0);
    const asId = KeptAnswers.keyOf('info', `${SHA}^{commit}`, 0);
    if (!asRef || !asId) throw new Error('both names look immutable');
    kept.keep(asRef, blob(10));
    expect(kept.get(asRef)).toBeUndefined();
    kept.keep(asId, blob(10));
    expect(kept.get(asId)).toBeDefined();
  });

  it('keeps its own copy of a small answer, not a view on a shared pool', () => {
    const kept = new KeptAnswers();
    const pooled = Buffer.from('small tree');
    kept.keep(question('k'), { ...blob(0), content: pooled, sizeBytes: pooled.length });
    const content = kept.get(question('k'))?.content;
    expect(content?.toString()).toBe('small tree');
    expect(content?.buffer.byteLength).toBe(pooled.length);
  });

  it("sums the processes' answers in one tally, and takes a gone process's out", () => {
    const tally = new KeptAnswersTally();
    const first = new KeptAnswers(tally);
    const second = new KeptAnswers(tally);
    first.keep(question('a'), blob(10));
    second.keep(question('b'), blob(10));
    second.keep(question('c'), blob(10));
    expect(first.get(question('a'))).toBeDefined();
    expect(first.get(question('b'))).toBeUndefined();
    expect(tally).toMatchObject({ size: 3, stats: { hits: 1, misses: 1 } });
    second.forget();
    expect(tally.size).toBe(1);
  });
});
