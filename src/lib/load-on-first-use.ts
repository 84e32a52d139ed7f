import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/**
 * A package loaded on the first call, synchronously, and shared by every later one: for code whose
 * callers are synchronous (a parser, an evaluator) and whose package only some kinds of request
 * need, so that an idle process does not hold it. The package is resolved as `import` would
 * resolve it and then required, which loads an ES module as well as a CommonJS one.
 * Where the callers can wait, `lazily` with `import()` is the plainer choice.
 *
 * @example
 * const yaml = loadOnFirstUse<typeof import('yaml')>('yaml');
 * yaml().parseDocument(text);
 */
export function loadOnFirstUse<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= require(fileURLToPath(import.meta.resolve(specifier))) as T;
    return loaded;
  };
}
