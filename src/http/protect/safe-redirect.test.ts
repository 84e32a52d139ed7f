import { describe, expect, it } from 'vitest';
import { challengeLocation, MAX_REDIRECT_LENGTH, safeRedirectTarget } from './safe-redirect.ts';

describe('safeRedirectTarget', () => {
  it.each([
    '/',
    '/search?q=kiln',
    '/repos/alice/kiln/commit/0123456789abcdef0123456789abcdef01234567',
    '/repos/alice/kiln/commits/feature/login',
    '/repos/alice/kiln/pulls?state=all&page=2',
    '/repos/alice/kiln/pulls/7#issuecomment-3',
    '/search?q=a%20b%2Fc',
    '/search?q=100%25',
    '/search?next=//not-a-host-here',
    '/repos/alice/k%C3%A4se',
  ])('returns the accepted path %s unchanged', (target) => {
    expect(safeRedirectTarget(target)).toBe(target);
  });

  // contracts/bot-protection.md §4, row by row, plus a few cousins.
  it.each([
    ['empty', ''],
    ['missing', undefined],
    ['not a string', ['/repos']],
    ['protocol-relative', '//evil.com'],
    ['protocol-relative, three slashes', '///evil.com'],
    ['slash backslash', '/\\evil.com'],
    ['backslash slash', '\\/evil.com'],
    ['two backslashes', '\\\\evil.com'],
    ['slash two backslashes', '/\\\\evil.com'],
    ['backslash later in the path', '/repos\\evil'],
    ['TAB between slashes', '/\t/evil.com'],
    ['LF between slashes', '/\n/evil.com'],
    ['CR between slashes', '/\r/evil.com'],
    ['CRLF header injection', '/ok\r\nSet-Cookie: a=b'],
    ['CRLF in the query', '/ok?x=\r\nLocation: //evil.com'],
    ['leading space', ' //evil.com'],
    ['leading space before a path', ' /repos'],
    ['leading NUL', '\u0000//evil.com'],
    ['inner NUL', '/repos\u0000'],
    ['DEL', '/repos\u007f'],
    ['inner space', '/repos/a b'],
    ['http URL', 'http://evil.com'],
    ['https URL, one slash', 'https:/evil.com'],
    ['scheme without slashes', 'http:evil.com'],
    ['javascript', 'javascript:alert(1)'],
    ['mixed-case javascript', 'JaVaScRiPt:alert(1)'],
    ['data', 'data:text/html,<script>alert(1)</script>'],
    ['encoded slashes', '/%2F%2Fevil.com'],
    ['encoded slashes, lower case', '/%2f%2fevil.com'],
    ['encoded backslash', '/%5Cevil.com'],
    ['encoded slash after a segment', '/repos/%2F%2Fevil.com'],
    ['encoded TAB', '/%09/evil.com'],
    ['encoded LF', '/%0a/evil.com'],
    ['double slash after a dot segment', '/.//evil.com'],
    ['double slash after a dot-dot segment', '/..//evil.com'],
    ['double slash inside the path', '/repos//evil.com'],
    ['fullwidth solidus', '／／evil.com'],
    ['fullwidth after a slash', '/／evil.com'],
    ['non-ASCII path', '/日本'],
    ['line separator', '/repos\u2028'],
    ['too long', `/${'a'.repeat(MAX_REDIRECT_LENGTH)}`],
    ['the challenge itself', '/challenge'],
    ['the challenge with a redirect', '/challenge?redirect=/x'],
    ['below the challenge', '/challenge/x'],
    ['relative path', 'repos/alice'],
    ['dot relative', './repos'],
    ['fragment only', '#top'],
    ['query only', '?a=b'],
  ])('sends %s to /', (_name, target) => {
    expect(safeRedirectTarget(target)).toBe('/');
  });

  it('accepts a target of exactly the maximum length', () => {
    const target = `/${'a'.repeat(MAX_REDIRECT_LENGTH - 1)}`;
    expect(safeRedirectTarget(target)).toBe(target);
  });
});

describe('challengeLocation', () => {
  it('carries a safe target, encoded', () => {
    expect(challengeLocation('/repos/a/b/commits/main?page=2')).toBe(
      '/challenge?redirect=%2Frepos%2Fa%2Fb%2Fcommits%2Fmain%3Fpage%3D2',
    );
  });

  it('drops an unsafe one', () => {
    expect(challengeLocation('//evil.com')).toBe('/challenge?redirect=%2F');
  });
});
