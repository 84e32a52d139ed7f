import { describe, expect, it } from 'vitest';
import { parseAuthorization } from './credentials.ts';

const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;

describe('parseAuthorization', () => {
  it.each([
    ['token abc', 'abc'],
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    [basic('anyone:abc'), 'abc'],
    [basic('abc:'), 'abc'],
    [basic('abc'), 'abc'],
    [basic('abc:x-oauth-basic'), 'abc'],
  ])('reads %j as a token', (header, token) => {
    expect(parseAuthorization(header)).toEqual({ kind: 'token', token });
  });

  it('treats no header as no credentials', () => {
    expect(parseAuthorization(undefined)).toEqual({ kind: 'none' });
  });

  it.each(['Digest x', 'Bearer', 'Bearer ', 'Basic !!!', basic(':'), 'x'.repeat(5000)])(
    'calls %j malformed',
    (header) => {
      expect(parseAuthorization(header)).toEqual({ kind: 'malformed' });
    },
  );
});
