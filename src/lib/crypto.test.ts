import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from './crypto.ts';

describe('sha256Hex', () => {
  it('gives the published digest of "abc"', () => {
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });

  it('hashes the UTF-8 bytes of any string, as stored token hashes were made', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (value) => {
        const stored = createHash('sha256').update(Buffer.from(value, 'utf8')).digest('hex');
        expect(sha256Hex(value)).toBe(stored);
      }),
    );
  });
});
