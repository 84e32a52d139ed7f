import { NODE_ENV, NODE_FLAGS, PRELOAD } from '../bin/kiln.js';

/**
 * The node flags the `kiln` launcher (bin/kiln.js) starts Kiln with, so a bench measures the
 * server as it is shipped: the launcher's flag list and its preload, as an absolute path.
 */
export function startFlags(): string[] {
  return [...NODE_FLAGS, '--import', PRELOAD];
}

/** The environment the launcher sets before Kiln starts (`MALLOC_ARENA_MAX=2`), as an object. */
export function startEnv(): Record<string, string> {
  return { ...NODE_ENV };
}
