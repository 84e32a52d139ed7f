/**
 * What an Authorization header offers. Per SPEC.md a personal access token may arrive as
 * `token <t>`, `Bearer <t>`, or HTTP Basic with the token as password or as username (with an
 * empty password, or Gitea's `x-oauth-basic`).
 */
export type Credentials =
  | { readonly kind: 'none' }
  | { readonly kind: 'token'; readonly token: string }
  | { readonly kind: 'malformed' };

const MAX_HEADER = 4096;

export function parseAuthorization(header: string | undefined): Credentials {
  if (header === undefined || header === '') return { kind: 'none' };
  if (header.length > MAX_HEADER) return { kind: 'malformed' };
  const space = header.indexOf(' ');
  if (space <= 0) return { kind: 'malformed' };
  const scheme = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1).trim();
  if (value === '') return { kind: 'malformed' };
  if (scheme === 'token' || scheme === 'bearer') return { kind: 'token', token: value };
  if (scheme !== 'basic') return { kind: 'malformed' };
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return { kind: 'malformed' };
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const username = colon === -1 ? decoded : decoded.slice(0, colon);
  const password = colon === -1 ? '' : decoded.slice(colon + 1);
  if (password !== '' && password !== 'x-oauth-basic') return { kind: 'token', token: password };
  if (username !== '') return { kind: 'token', token: username };
  return { kind: 'malformed' };
}

/**
 * A username and password sent with HTTP Basic, for the few routes that take a password (the
 * token API, as in Gitea). Undefined when the header is not Basic or carries a token the way
 * `parseAuthorization` reads one: an empty password, or Gitea's `x-oauth-basic`.
 */
export function parseBasicPassword(
  header: string | undefined,
): { readonly username: string; readonly password: string } | undefined {
  if (header === undefined || header.length > MAX_HEADER) return undefined;
  const match = /^basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header);
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  const password = decoded.slice(colon + 1);
  if (password === '' || password === 'x-oauth-basic') return undefined;
  return { username: decoded.slice(0, colon), password };
}
