import { Invalid } from '../errors.ts';

/**
 * Names that collide with Kiln's top-level routes (DESIGN.md → URLs) or that Gitea also keeps
 * back. A user or organisation may not take one, in any letter case.
 */
export const RESERVED_HANDLES: ReadonlySet<string> = new Set([
  '-',
  '.',
  '..',
  '.well-known',
  'about',
  'admin',
  'api',
  'assets',
  'avatars',
  'captcha',
  'challenge',
  'commit',
  'commits',
  'explore',
  'favicon.ico',
  'federation',
  'healthz',
  'help',
  'issues',
  'kiln-actions',
  'kiln-federation',
  'login',
  'logout',
  'metrics',
  'new',
  'nodeinfo',
  'notifications',
  'org',
  'orgs',
  'pulls',
  'repo',
  'repos',
  'robots.txt',
  'search',
  'settings',
  'signup',
  'static',
  'swagger',
  'user',
  'users',
]);

const HANDLE_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9]|[-_.](?=[A-Za-z0-9]))*$/;
export const MAX_HANDLE_LENGTH = 40;

/**
 * Gitea's rules: letters, digits, `-`, `_` and `.`; starts and ends with a letter or digit; no
 * two punctuation characters in a row; at most 40 characters; not reserved. Throws Invalid.
 */
export function assertValidHandle(handle: string, what = 'username'): void {
  if (handle.length === 0 || handle.length > MAX_HANDLE_LENGTH) {
    throw new Invalid(`${what} must be 1 to ${MAX_HANDLE_LENGTH} characters`);
  }
  if (!HANDLE_PATTERN.test(handle)) {
    throw new Invalid(
      `${what} may contain only letters, digits, '-', '_' and '.', must start and end with a letter or digit, and may not repeat punctuation`,
    );
  }
  if (RESERVED_HANDLES.has(handle.toLowerCase())) {
    throw new Invalid(`${what} "${handle}" is reserved`);
  }
}

export function isValidHandle(handle: string): boolean {
  try {
    assertValidHandle(handle);
    return true;
  } catch {
    return false;
  }
}
