import { describe, expect, it } from 'vitest';
import { parseSignature } from '../git/objects/signature.ts';
import { gitTime, toApiPayloadUser } from './commit.ts';
import { refPath } from './release.ts';

describe('gitTime', () => {
  it.each([
    ['A <a@x> 1700000000 +0000', '2023-11-14T22:13:20+00:00'],
    ['A <a@x> 1700000000 +0200', '2023-11-15T00:13:20+02:00'],
    ['A <a@x> 1700000000 -0530', '2023-11-14T16:43:20-05:30'],
    ['A <a@x> 0 +0000', '1970-01-01T00:00:00+00:00'],
  ])('writes %s in its own offset', (ident, expected) => {
    expect(gitTime(parseSignature(ident))).toBe(expected);
  });
});

describe('toApiPayloadUser', () => {
  it('names the account with that address, whatever its case, or none', () => {
    const handles = new Map([['alice@example.test', 'alice']]);
    expect(toApiPayloadUser(parseSignature('Alice <Alice@Example.test> 1 +0000'), handles)).toEqual(
      { name: 'Alice', email: 'Alice@Example.test', username: 'alice' },
    );
    expect(toApiPayloadUser(parseSignature('Bob <bob@x> 1 +0000'), handles).username).toBe('');
  });
});

describe('refPath', () => {
  it('encodes each segment and keeps the slashes', () => {
    expect(refPath('release/v1.0 beta#2')).toBe('release/v1.0%20beta%232');
  });
});
