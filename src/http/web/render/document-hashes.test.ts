import { describe, expect, it } from 'vitest';
import { contentHash } from '../../../lib/content-hash.ts';
import { DocumentHashes } from './document-hashes.ts';

/** A long text, a new string each call, as rows read from a database are. */
const long = (fill: string, chars = 20_000) => `${fill}${'x'.repeat(chars - fill.length)}`;

describe('DocumentHashes', () => {
  it('gives the content hash of short and long texts, remembered or not', () => {
    const hashes = new DocumentHashes(100_000);
    for (const text of ['', 'short', long('a'), long('a'), long('b'), 'é'.repeat(30_000)]) {
      expect(hashes.of(text)).toBe(contentHash(text));
    }
    // Same length, other content: told apart by content, not by length.
    expect(hashes.of(long('a'))).not.toBe(hashes.of(long('b')));
  });

  it('remembers long texts up to its bound, forgetting the least recently used first', () => {
    const hashes = new DocumentHashes(50_000);
    hashes.of('short');
    expect(hashes.chars).toBe(0);
    hashes.of(long('a'));
    hashes.of(long('b'));
    expect(hashes.chars).toBe(40_000);
    hashes.of(long('a'));
    hashes.of(long('c'));
    // b was used least recently: it went, a and c stay.
    expect(hashes.chars).toBe(40_000);
    hashes.of(long('d', 60_000));
    expect(hashes.chars).toBe(40_000);
    for (const fill of ['a', 'b', 'c']) expect(hashes.of(long(fill))).toBe(contentHash(long(fill)));
  });
});
