// Preloaded by `npm start` (`node --import ./src/compile-cache.js src/main.ts …`).
//
// Node strips the types of every .ts module it loads unless its compile cache already holds that
// module's stripped and compiled code; the first miss loads the type stripper, whose code and
// WebAssembly then stay resident (about 18 MB). `src/main.ts` cannot turn the cache on for itself:
// Node has already stripped it by then. This file runs first, and it is JavaScript because it
// must not need the stripper, so a start on a warm cache strips nothing at all.
import { enableCompileCache } from 'node:module';

enableCompileCache();
