// Preloaded by `npm start` (`node --import ./src/compile-cache.js src/main.ts …`) and imported
// first by src/main.ts.
//
// Node strips the types of every .ts module it loads unless its compile cache already holds that
// module's stripped and compiled code; the first miss loads the type stripper, whose code and
// WebAssembly then stay resident (about 18 MB). `src/main.ts` cannot turn the cache on for itself:
// Node has already stripped it by then. Preloaded, this runs first, and it is JavaScript because
// it must not need the stripper, so a start on a warm cache strips nothing at all.
//
// The cache holds code Node will run, so it lives in the installation's own directory
// (node_modules/.cache), not in the shared temporary directory where another local user could
// plant it. NODE_COMPILE_CACHE names another directory; where neither can be written Node runs
// without a cache.
import { enableCompileCache } from 'node:module';
import { join } from 'node:path';

enableCompileCache(
  process.env.NODE_COMPILE_CACHE ??
    join(import.meta.dirname, '..', 'node_modules', '.cache', 'kiln-compile'),
);
