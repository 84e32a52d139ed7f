import { registerHooks } from 'node:module';
import { loadOnFirstUse } from './load-on-first-use.ts';

/** ssh2's optional compiled addon, as its crypto module names it. */
const ADDON = /(^|[/\\])sshcrypto\.node$/;

let refusing = false;

/**
 * Makes ssh2 run without its optional compiled addon, with the ciphers it does in JavaScript
 * and through `node:crypto`, whatever npm built when it installed ssh2.
 *
 * Why: the addon's ciphers are `node::ObjectWrap`s, whose destructor on Node 24 removes an
 * environment cleanup hook of the isolate's current environment. A cipher collected by V8's
 * garbage collector, where no context is entered, has no environment, and Node aborts the
 * process (50 clones over SSH at once brought the server down within seconds). npm builds the
 * addon whenever ssh2 is installed with Node 24 on PATH and a compiler at hand, so it is
 * refused here rather than hoped absent; ssh2 then reads it as not built, as it does on a
 * machine without a compiler.
 */
function refuseSsh2Addon(): void {
  if (refusing) return;
  refusing = true;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      if (ADDON.test(specifier) && context.parentURL?.includes('/ssh2/')) {
        throw Object.assign(new Error('ssh2 runs without its compiled addon in Kiln'), {
          code: 'MODULE_NOT_FOUND',
        });
      }
      return nextResolve(specifier, context);
    },
  });
}

const load = loadOnFirstUse<typeof import('ssh2')>('ssh2');

/** ssh2, loaded on first use (it is megabytes an idle server need not hold), without its addon. */
export function ssh2(): typeof import('ssh2') {
  refuseSsh2Addon();
  return load();
}

/** Whether ssh2 found its compiled addon: never, once loaded through `ssh2()`. */
export function ssh2AddonLoaded(): boolean {
  ssh2();
  return sshCrypto().bindingAvailable;
}

const sshCrypto = loadOnFirstUse<{ bindingAvailable: boolean }>('ssh2/lib/protocol/crypto.js');
