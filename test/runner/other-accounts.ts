import { realpathSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** Whether an account that is neither owner nor group may reach `path`: `o+x` on the way. */
function othersReach(path: string): boolean {
  for (let at = realpathSync(path); ; at = dirname(at)) {
    if ((statSync(at).mode & 0o001) === 0) return false;
    if (at === dirname(at)) return true;
  }
}

/**
 * Whether a daemon or job under another account could run from this checkout and its Node.
 * Isolated jobs run under other accounts, and some suites start the daemon as one: a checkout
 * in a private directory (a home of mode 0700, `mktemp -d`) cannot be tested that way, and the
 * daemon itself refuses to start there with a line saying why.
 */
export const OTHER_ACCOUNTS_REACH_US = othersReach(process.execPath) && othersReach(process.cwd());
