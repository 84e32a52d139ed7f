import { isValidRefName } from '../../git/ref-names.ts';

/** Refs in URLs rarely have more segments than this; longer prefixes are not tried. */
export const MAX_REF_SEGMENTS = 16;

/**
 * The ways `{ref}/{path}` may split into a ref name and a path, longest ref first, keeping only
 * names git would accept as a branch or tag. `a/b/c` → `a/b/c`, `a/b`, `a`.
 *
 * @example
 *   refCandidates('feature/x/src/main.ts') // ['feature/x/src/main.ts', 'feature/x/src', 'feature/x', 'feature']
 */
export function refCandidates(spec: string): string[] {
  const segments = spec.split('/');
  const candidates: string[] = [];
  for (let count = Math.min(segments.length, MAX_REF_SEGMENTS); count > 0; count--) {
    const name = segments.slice(0, count).join('/');
    if (name.length > 0 && !name.startsWith('-') && isValidRefName(name, true)) {
      candidates.push(name);
    }
  }
  return candidates;
}

/** The part of `spec` after the ref `name` (which must be a prefix of it), without slashes. */
export function pathAfter(spec: string, name: string): string {
  return spec.slice(name.length).replace(/^\/+/, '');
}

const ABBREVIATED_SHA = /^[0-9a-f]{4,64}$/;

/** Whether a URL segment could be a commit id (full or abbreviated, lowercase hex). */
export function looksLikeSha(segment: string): boolean {
  return ABBREVIATED_SHA.test(segment);
}

/** How many of a file's first bytes `looksBinary` reads. */
export const BINARY_SNIFF_BYTES = 8000;

/**
 * Whether bytes look binary: a NUL in the first 8 000 bytes, as git's own heuristic has it.
 */
export function looksBinary(content: Buffer): boolean {
  return content.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

const README = /^readme(\.(md|markdown|mdown|txt|rst))?$/i;

/** Whether a file's name says it is markdown, to be rendered rather than shown as text. */
export function isMarkdownName(name: string): boolean {
  return /\.(md|markdown|mdown)$/i.test(name);
}

/** Picks the README of a directory listing: markdown first, then plain text. */
export function pickReadme(names: readonly string[]): string | undefined {
  const matches = names.filter((name) => README.test(name));
  return (
    matches.find(isMarkdownName) ?? matches.find((name) => !/\.rst$/i.test(name)) ?? matches[0]
  );
}
