import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { randomHex, sha256Hex } from './crypto.ts';

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

describe('randomHex', () => {
  it('gives lowercase hex of the asked length, across refills of its pool and past its size', () => {
    for (const bytes of [1, 16, 20, 32, 300, 512, 513, 4096]) {
      expect(randomHex(bytes)).toMatch(new RegExp(`^[0-9a-f]{${bytes * 2}}$`));
    }
  });

  it('never hands out the same bytes twice', () => {
    // 2,000 secrets of 32 bytes drain the 4 KB pool about sixteen times.
    const secrets = Array.from({ length: 2000 }, () => randomHex(32));
    expect(new Set(secrets).size).toBe(secrets.length);
    // Overlapping slices would repeat halves of secrets even where whole ones differ.
    const halves = secrets.flatMap((secret) => [secret.slice(0, 32), secret.slice(32)]);
    expect(new Set(halves).size).toBe(halves.length);
  });
});
