// Preloaded by the `kiln` launcher (bin/kiln.js runs `node --import src/start-up.js src/main.ts …`)
// and imported first by src/main.ts. It is JavaScript because it must run before Node could strip
// any types.
//
// Three things make a start quick and leave the idle server small:
//
// 1. The compile cache. Node strips the types of every .ts module it loads unless its compile
//    cache already holds that module's stripped and compiled code; the first miss loads the type
//    stripper, whose code and WebAssembly then stay resident (about 18 MB). `src/main.ts` cannot
//    turn the cache on for itself: Node has already stripped it by then. Preloaded, this runs
//    first, so a start on a warm cache strips nothing at all. The cache holds code Node will run,
//    so it lives in the installation's own directory (node_modules/.cache), not in the shared
//    temporary directory where another local user could plant it. NODE_COMPILE_CACHE names
//    another directory; where neither can be written Node runs without a cache.
//
// 2. No optimizing compilers until the process is ready (`startedUp()`). Start-up runs most of its
//    code once — loading a thousand modules, checking migrations, building routes — yet enough of
//    it is hot for V8 to hand it to Maglev and TurboFan: optimized code that never runs again,
//    whose compilation pages in about 7 MB of the compilers' own machine code and leaves their
//    memory behind, about 10 MB of an idle server. Until then the process runs on V8's
//    interpreter and baseline compiler; afterwards V8 tiers up as always, so what requests make
//    hot is optimized as it becomes hot. A command line or NODE_OPTIONS that already says how V8
//    should tier is left alone.
//
// 3. One memory-reducing collection when a server is up (`releaseStartUpGarbage()`). The launcher
//    lets the old generation reach 64 MB before V8 collects it (docs/deployment.md → Memory), so
//    everything start-up threw away (module sources read and stripped, route tables built and
//    copied, migration checks) stays resident: about 9 MB of an idle server's heap is garbage that
//    no collection would ever come for while it waits. V8 has no API to ask for that one
//    collection, so the `gc` function is taken from a throwaway context and the flag put back:
//    nothing else in the process ever sees it, and V8's flags (which its code cache checks) end
//    as they began.
import { enableCompileCache } from 'node:module';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

enableCompileCache(
  process.env.NODE_COMPILE_CACHE ??
    join(import.meta.dirname, '..', 'node_modules', '.cache', 'kiln-compile'),
);

const OPTIMIZING_TIERS = ['maglev', 'turbofan'];

/** Whether the process was started with its own say on V8's tiers (`--no-turbofan`, `--jitless`, …). */
function tiersChosenByCommandLine() {
  const words = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return words.some((word) =>
    /^--(no-)?(maglev|turbofan|opt|sparkplug)\b|^--(max-opt|jitless)\b/.test(
      word.replaceAll('_', '-'),
    ),
  );
}

let deferred = !tiersChosenByCommandLine();
if (deferred) for (const tier of OPTIMIZING_TIERS) setFlagsFromString(`--no-${tier}`);

/** Start-up is over: from now on V8 optimizes hot code again. Safe to call more than once. */
export function startedUp() {
  if (!deferred) return;
  deferred = false;
  for (const tier of OPTIMIZING_TIERS) setFlagsFromString(`--${tier}`);
}

/**
 * Collects start-up's garbage once and hands the freed pages back to the system, on the next turn
 * of the event loop (after the caller has said it is listening). A long-running command calls it
 * when it is ready; it costs one pause of a few hundred milliseconds at most, once.
 */
export function releaseStartUpGarbage() {
  setImmediate(() => {
    const exposed = typeof globalThis.gc === 'function';
    if (!exposed) setFlagsFromString('--expose-gc');
    let gc;
    try {
      gc = exposed ? globalThis.gc : runInNewContext('gc');
    } catch {
      // A V8 that does not take the flag at run time: the collection is only a saving.
    } finally {
      if (!exposed) setFlagsFromString('--no-expose-gc');
    }
    // 'last-resort' is V8's memory-reducing collection: it compacts and releases emptied pages,
    // where a regular one keeps them for the heap to grow into again.
    if (typeof gc === 'function') gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  });
}
