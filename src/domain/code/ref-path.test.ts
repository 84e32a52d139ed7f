import { describe, expect, it } from 'vitest';
import { looksBinary, looksLikeSha, pathAfter, pickReadme, refCandidates } from './ref-path.ts';

describe('refCandidates', () => {
  it('lists every prefix, longest first', () => {
    expect(refCandidates('feature/x/src/main.ts')).toEqual([
      'feature/x/src/main.ts',
      'feature/x/src',
      'feature/x',
      'feature',
    ]);
  });

  it('skips names git refuses', () => {
    expect(refCandidates('a/../b')).toEqual(['a']);
    expect(refCandidates('-x/y')).toEqual([]);
    expect(refCandidates('')).toEqual([]);
    expect(refCandidates('v1.0/x.lock')).toEqual(['v1.0']);
  });

  it('caps the number of segments tried', () => {
    const deep = Array.from({ length: 40 }, (_, i) => `d${i}`).join('/');
    expect(refCandidates(deep)).toHaveLength(16);
  });
});

describe('pathAfter', () => {
  it('strips the ref and the slash', () => {
    expect(pathAfter('feature/x/src/a.ts', 'feature/x')).toBe('src/a.ts');
    expect(pathAfter('main', 'main')).toBe('');
  });
});

describe('looksLikeSha / looksBinary / pickReadme', () => {
  it('recognises ids', () => {
    expect(looksLikeSha('abc1234')).toBe(true);
    expect(looksLikeSha('ABC1234')).toBe(false);
    expect(looksLikeSha('abc')).toBe(false);
  });

  it('calls bytes with a NUL binary', () => {
    expect(looksBinary(Buffer.from('plain text\n'))).toBe(false);
    expect(looksBinary(Buffer.from([0x89, 0x50, 0x00, 0x01]))).toBe(true);
  });

  it('prefers a markdown README', () => {
    expect(pickReadme(['a.ts', 'README', 'readme.md'])).toBe('readme.md');
    expect(pickReadme(['README.txt', 'x'])).toBe('README.txt');
    expect(pickReadme(['src'])).toBeUndefined();
  });
});
