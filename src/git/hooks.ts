import { chmod, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PRE_RECEIVE_HOOK } from './kiln-hooks.ts';
import { checkFullRef } from './ref-names.ts';
import { requireRepository } from './repo-exists.ts';
import type { RepoHandle } from './repo-paths.ts';

/**
 * Protected branches without a callback server: every repository carries a `pre-receive` hook
 * that reads the protected refs from an environment variable the server sets when it starts
 * receive-pack. Clients cannot set it (receive-pack runs in the server's process tree with the
 * pinned environment of command.ts), and a ref not listed is unrestricted.
 */

/** Newline-separated full ref names (`refs/heads/main`) that may not be deleted or rewound. */
export const PROTECTED_REFS_ENV = 'KILN_PROTECTED_REFS';

/**
 * The hook itself, POSIX sh (kiln-hooks/pre-receive). It reads every `<old> <new> <ref>` line,
 * refuses deletion of a protected ref and any update whose old tip is not an ancestor of the new
 * one (in pre-receive the pushed objects are reachable through git's quarantine, so `merge-base`
 * sees them), and reports every refused ref before failing, so one push shows all its problems at
 * once. It also refuses to create or move any ref with a part starting with `-` (`refs/heads/-x`):
 * git allows them, but Kiln never passes such a name to git (it could read as an option), so they
 * could never be shown, merged or archived; and a branch or tag named `HEAD`, which git itself
 * will not create as a branch. Deleting either stays possible. These are the rules of
 * `pushRefusal` (ref-names.ts); a test feeds both the same generated names. Git runs it from
 * Kiln's hooks directory (kiln-hooks.ts); the copy in each repository is for a git run by hand.
 */
export { PRE_RECEIVE_HOOK };

/** Newline-separated shell patterns over full ref names whose refs are protected likewise. */
export const PROTECTED_PATTERNS_ENV = 'KILN_PROTECTED_PATTERNS';

/**
 * The environment for receive-pack that makes the hook protect `refs` (full names) and the refs
 * matching `patterns` (read as `frozenRefsEnv` reads its own). A pattern is matched against the
 * refs a push names, so a rule over many branches costs the same as one over a single branch.
 */
export function protectedRefsEnv(
  refs: readonly string[],
  patterns: readonly string[] = [],
): Record<string, string> {
  return {
    ...listEnv(PROTECTED_REFS_ENV, refs.map(checkFullRef)),
    ...listEnv(PROTECTED_PATTERNS_ENV, patterns.map(checkHookPattern)),
  };
}

/** One variable of newline-separated entries, or none when there are no entries. */
function listEnv(name: string, entries: readonly string[]): Record<string, string> {
  return entries.length === 0 ? {} : { [name]: entries.join('\n') };
}

/**
 * A shell pattern over full ref names as the hook reads it; anything else (braces, a
 * backslash, whitespace, a pattern outside `refs/`) is refused here: the hook could not read
 * it as the rule means it.
 */
function checkHookPattern(pattern: string): string {
  if (!pattern.startsWith('refs/') || /[\s{}\\]/.test(pattern)) {
    throw new Error(`not a pattern the hook can read: ${JSON.stringify(pattern)}`);
  }
  return pattern;
}

/** Newline-separated full ref names this pusher may not create, move or delete at all. */
export const FROZEN_REFS_ENV = 'KILN_FROZEN_REFS';
/** Newline-separated shell patterns over full ref names (`refs/heads/release/*`), likewise. */
export const FROZEN_PATTERNS_ENV = 'KILN_FROZEN_PATTERNS';

/**
 * The environment that makes the hook refuse every update of `refs` and of refs matching
 * `patterns` (full names; `*`, `?` and `[…]` as the shell reads them in `case`). A pattern with
 * anything else (braces, a backslash, whitespace) is refused here: the hook could not read it
 * as the rule means it.
 */
export function frozenRefsEnv(
  refs: readonly string[],
  patterns: readonly string[],
): Record<string, string> {
  return {
    ...listEnv(FROZEN_REFS_ENV, refs.map(checkFullRef)),
    ...listEnv(FROZEN_PATTERNS_ENV, patterns.map(checkHookPattern)),
  };
}

/** Writes the hooks into a repository directory (used while it is still being assembled). */
export async function writeHooks(gitDir: string): Promise<void> {
  const hooksDir = path.join(gitDir, 'hooks');
  await mkdir(hooksDir, { recursive: true, mode: 0o700 });
  const target = path.join(hooksDir, 'pre-receive');
  // Write beside and rename, so a receive-pack running right now never sees half a script.
  const staging = `${target}.${process.pid}.tmp`;
  // The owner's alone, like everything in the data directory (lib/private-modes.ts).
  await writeFile(staging, PRE_RECEIVE_HOOK, { mode: 0o700 });
  await chmod(staging, 0o700);
  await rename(staging, target);
}

/** Whether the repository's hooks are Kiln's current ones, executable by their owner. */
export async function hooksAreCurrent(gitDir: string): Promise<boolean> {
  const hook = path.join(gitDir, 'hooks', 'pre-receive');
  const [current, info] = await Promise.all([
    readFile(hook, 'utf8').catch(() => undefined),
    stat(hook).catch(() => undefined),
  ]);
  return current === PRE_RECEIVE_HOOK && info !== undefined && (info.mode & 0o100) !== 0;
}

/**
 * Makes sure the repository's hooks are Kiln's current ones; rewrites them only when they differ
 * (a repository made by an older version, or a hook edited on disk). Returns whether it wrote.
 */
export async function ensureHooks(repo: RepoHandle): Promise<boolean> {
  await requireRepository(repo);
  if (await hooksAreCurrent(repo.path)) return false;
  await writeHooks(repo.path);
  return true;
}
