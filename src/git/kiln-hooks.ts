import { accessSync, constants, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Kiln's own hooks directory, shipped with Kiln (`kiln-hooks/`): the one `core.hooksPath` every
 * git that Kiln starts runs with (command.ts). It holds only `pre-receive`, so git never runs a
 * hook from a repository's own `hooks/` directory, nor any other hook (post-receive, update,
 * reference-transaction, proc-receive, …) whoever wrote the repository's files.
 */
export const KILN_HOOKS_DIR = fileURLToPath(new URL('./kiln-hooks', import.meta.url));

const PRE_RECEIVE_FILE = `${KILN_HOOKS_DIR}/pre-receive`;

/** The `pre-receive` hook's script (see hooks.ts for what it enforces). */
export const PRE_RECEIVE_HOOK = readFileSync(PRE_RECEIVE_FILE, 'utf8');

let checked = false;

/**
 * Fails unless the shipped hook can run: git skips a hook that is not executable, with only a
 * warning, and a push would then pass protected branches unchecked. Checked once per process,
 * before the first git starts; fails closed (no git at all) rather than open.
 */
export function requireRunnableHooks(): void {
  if (checked) return;
  try {
    accessSync(PRE_RECEIVE_FILE, constants.X_OK);
  } catch {
    throw new Error(
      `${PRE_RECEIVE_FILE} is not executable: reinstall Kiln, or chmod 755 it, before running git`,
    );
  }
  checked = true;
}
