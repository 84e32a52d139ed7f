/**
 * A value made on its first use and shared by every later caller: for modules an installation
 * may never need, loaded with `import()` inside `make`, so an idle process does not hold them.
 * A failed attempt is forgotten, so the next call tries again rather than every later caller
 * getting the same rejection for the life of the process.
 *
 * @example
 * const markdownIt = lazily(() => import('markdown-it').then((module) => module.default));
 * const MarkdownIt = await markdownIt();
 */
export function lazily<T>(make: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= make().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}
