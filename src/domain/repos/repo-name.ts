import { Invalid } from '../errors.ts';

const NAME = /^[A-Za-z0-9_.-]+$/;
const RESERVED = new Set([
  '.',
  '..',
  '-',
  '_',
  'assets',
  'avatars',
  'user',
  'org',
  'explore',
  'repo',
  'api',
  'admin',
  'new',
  'template',
]);
const RESERVED_SUFFIXES = ['.git', '.wiki', '.rss', '.atom', '.diff', '.patch'];
export const MAX_REPO_NAME_LENGTH = 100;

/**
 * Gitea's rules for repository names: letters, digits, `-`, `_` and `.`; not `.` or `..`;
 * not ending in `.git` (or the other suffixes routes would swallow); a few reserved words.
 * Throws Invalid with the reason.
 */
export function assertValidRepoName(name: string): void {
  if (name.length === 0 || name.length > MAX_REPO_NAME_LENGTH) {
    throw new Invalid(`repository name must be 1 to ${MAX_REPO_NAME_LENGTH} characters`);
  }
  if (!NAME.test(name)) {
    throw new Invalid('repository name may contain only letters, digits, "-", "_" and "."');
  }
  const lower = name.toLowerCase();
  if (RESERVED.has(lower)) throw new Invalid(`repository name "${name}" is reserved`);
  const suffix = RESERVED_SUFFIXES.find((end) => lower.endsWith(end));
  if (suffix) throw new Invalid(`repository name must not end with "${suffix}"`);
  if (name.startsWith('-') || name.startsWith('.')) {
    throw new Invalid('repository name must not start with "-" or "."');
  }
  if (name.includes('..')) throw new Invalid('repository name must not contain ".."');
}
