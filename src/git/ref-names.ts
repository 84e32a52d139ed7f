import { Invalid } from '../domain/errors.ts';

/**
 * Pure checks of reference names and object ids, so that user input is refused before any git
 * process starts. The rules are `git check-ref-format`'s, plus Kiln's own: no leading dash and
 * no `HEAD` as a branch or tag name.
 */

export const MAX_REF_NAME_LENGTH = 255;
const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const ABBREVIATED_SHA = /^[0-9a-f]{4,64}$/;
// Control characters, space, DEL and the characters git reserves for revision syntax.
const FORBIDDEN = /[\0-\x20\x7f~^:?*[\\]/;

/** A full object id (SHA-1 or SHA-256), lowercase hex. */
export function isSha(value: string): boolean {
  return SHA.test(value);
}

/** The all-zero id git uses for "no object" in ref updates, for a given id length. */
export function zeroSha(length = 40): string {
  return '0'.repeat(length);
}

export function isZeroSha(value: string): boolean {
  return /^0+$/.test(value);
}

/** Whether `name` follows git's reference name rules; `allowOneLevel` admits `main` or `HEAD`. */
export function isValidRefName(name: string, allowOneLevel = false): boolean {
  if (name.length === 0 || name.length > MAX_REF_NAME_LENGTH) return false;
  if (FORBIDDEN.test(name) || name.includes('..') || name.includes('@{') || name === '@')
    return false;
  if (name.startsWith('/') || name.endsWith('/') || name.endsWith('.') || name.includes('//'))
    return false;
  const parts = name.split('/');
  if (!allowOneLevel && parts.length < 2) return false;
  return parts.every((part) => !part.startsWith('.') && !part.endsWith('.lock'));
}

function checkShortName(name: string, what: string): string {
  if (
    !isValidRefName(name, true) ||
    name.startsWith('-') ||
    name === 'HEAD' ||
    name.startsWith('refs/')
  ) {
    throw new Invalid(`invalid ${what} name`, { details: { [what]: name } });
  }
  return name;
}

/** Checks a branch name (`main`, `feature/x`) and returns its full ref, `refs/heads/…`. */
export function branchRef(name: string): string {
  return `refs/heads/${checkShortName(name, 'branch')}`;
}

/** Checks a tag name and returns its full ref, `refs/tags/…`. */
export function tagRef(name: string): string {
  return `refs/tags/${checkShortName(name, 'tag')}`;
}

/** Checks a full reference name (`refs/…`) and returns it. */
export function checkFullRef(name: string): string {
  if (!name.startsWith('refs/') || !isValidRefName(name)) {
    throw new Invalid('invalid reference name', { details: { ref: name } });
  }
  return name;
}

/**
 * Why a push may not create or move `ref`, or undefined when it may. receive-pack already
 * refuses names outside git's reference rules; on top of that (the pre-receive hook,
 * hooks.ts, enforces the same): no part may start with `-` (git would read it as an option
 * wherever Kiln passed it), and a branch or tag may not be called `HEAD` (git refuses to
 * create such a branch itself, and `HEAD` would then name two things). Together these make
 * every pushed `refs/heads/X` a name `git check-ref-format --branch X` accepts.
 */
export function pushRefusal(ref: string): string | undefined {
  if (!isValidRefName(ref)) return 'not a valid reference name';
  if (`/${ref}`.includes('/-')) return "no part of a ref name may start with '-'";
  if (ref === 'refs/heads/HEAD' || ref === 'refs/tags/HEAD') {
    return "'HEAD' is not a valid branch or tag name";
  }
  return undefined;
}

/** Checks a full object id and returns it. */
export function checkSha(value: string, what = 'sha'): string {
  if (!isSha(value))
    throw new Invalid(`${what} is not a full object id`, { details: { [what]: value } });
  return value;
}

/**
 * Checks a user-supplied revision: a full or abbreviated object id, or a reference name, short
 * (`main`, `v1.0`) or full. Anything with revision syntax (`~`, `^`, `:`, `@{`, `..`) is refused,
 * so `:/text` searches or reflog walks can never be requested from outside.
 */
export function checkRevision(value: string): string {
  if (ABBREVIATED_SHA.test(value)) return value;
  if (!isValidRefName(value, true) || value.startsWith('-')) {
    throw new Invalid('invalid revision', { details: { revision: value } });
  }
  return value;
}

/**
 * Checks a ref pattern for listing: a full reference name, or a prefix of them ending in a slash
 * (`refs/heads/`).
 */
export function checkRefPattern(pattern: string): string {
  const name = pattern.endsWith('/') ? pattern.slice(0, -1) : pattern;
  if (!(name === 'refs' || name.startsWith('refs/')) || !isValidRefName(name, true)) {
    throw new Invalid('invalid reference pattern', { details: { pattern } });
  }
  return pattern;
}
