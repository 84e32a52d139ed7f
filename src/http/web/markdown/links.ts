import type { MarkdownRepo } from './references.ts';

/** Where relative links and images in a document point, and the repository it belongs to. */
export type MarkdownBase = {
  /** Prefix for links: the tree root of the ref, e.g. `/repos/o/n/src/main`. */
  readonly links: string;
  /** Prefix for images, e.g. `/repos/o/n/raw/main`. */
  readonly images: string;
  /** The document's directory inside the tree ('' for the root), e.g. `docs`. */
  readonly dir: string;
  /** The repository `#12` refers to; without it, `#12` stays text. */
  readonly repo?: MarkdownRepo;
};

const ORIGIN = 'https://relative.invalid';

/**
 * A relative URL resolved from `dir` and put under `prefix` (never above it); absolute URLs,
 * fragments and rooted paths are returned unchanged.
 */
export function resolveRelative(href: string, prefix: string, dir = ''): string {
  if (
    href === '' ||
    href.startsWith('#') ||
    href.startsWith('/') ||
    /^[a-z][a-z0-9+.-]*:/i.test(href)
  ) {
    return href;
  }
  const url = new URL(href, `${ORIGIN}/${dir ? `${encodeURI(dir)}/` : ''}`);
  if (url.origin !== ORIGIN) return href;
  return `${prefix.replace(/\/+$/, '')}${url.pathname}${url.search}${url.hash}`;
}
