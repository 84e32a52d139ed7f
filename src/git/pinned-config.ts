import { KILN_HOOKS_DIR, requireRunnableHooks } from './kiln-hooks.ts';

/**
 * Git never runs repository-controlled code. A repository's `config` and `hooks/` are files on
 * disk: Kiln writes them itself (repository.ts, hooks.ts, and a restore rewrites them rather than
 * keeping an archive's), but a config key that names a program, or a hook, would run as the
 * server's user if anything else ever put one there. So every git Kiln starts (command.ts, the
 * one place that starts git) is given, on its command line, which outranks every config file:
 *
 * - `core.hooksPath` = Kiln's own hooks directory (kiln-hooks.ts), holding only `pre-receive`:
 *   no hook of a repository's `hooks/` runs, and no other hook (post-receive, update,
 *   reference-transaction, proc-receive for `receive.procReceiveRefs`, pre-auto-gc) exists;
 * - the keys of git 2.39 that run a program set to nothing, to git's own built-in behaviour, or to
 *   a fixed program of Kiln's choosing: below, each with what it would run;
 * - `protocol.*.allow`: only local paths and http(s) (git's own helpers), so `ext::` (a command as
 *   a URL), ssh (`core.sshCommand`, `GIT_SSH`), git:// (`core.gitProxy`) and any other
 *   `git-remote-*` helper are never used, whatever a config rewrites a URL to.
 *
 * What this cannot pin, the config file being Kiln's own closes: drivers named by attributes
 * (`diff.<driver>.command`/`textconv`, `filter.<driver>.clean`/`smudge`/`process`,
 * `merge.<driver>.driver`) and `remote.<name>.uploadpack` need a config entry under a name of the
 * repository's choosing; `.gitattributes` (in a tree, or `info/attributes`, which a restore does
 * not keep) can select a driver but not define one, and system attributes and `core.attributesFile`
 * are off. `uploadpack.packObjectsHook` and `safe.directory` are read only from protected config
 * (system, global, command line), all of which Kiln sets or turns off (GIT_CONFIG_NOSYSTEM,
 * GIT_CONFIG_GLOBAL=/dev/null). `alias.*` never applies: Kiln runs only git's own commands.
 */
const NEUTRAL: readonly (readonly [key: string, value: string])[] = [
  // Hooks run only from Kiln's directory; fsmonitor would run a program on index reads.
  ['core.hooksPath', KILN_HOOKS_DIR],
  ['core.fsmonitor', 'false'],
  // receive-pack advertises a lender's refs: git's own listing, not a configured command.
  [
    'core.alternateRefsCommand',
    'f() { git --git-dir="$1" for-each-ref --format="%(objectname)"; }; f',
  ],
  // Interactive programs: ":" is git's "no editor"; no pager; no password prompts or helpers.
  ['core.pager', 'cat'],
  ['core.editor', ':'],
  ['sequence.editor', ':'],
  ['core.askPass', ''],
  ['credential.helper', ''],
  // Transports that run programs.
  ['core.sshCommand', ''],
  ['protocol.allow', 'never'],
  ['protocol.file.allow', 'always'],
  ['protocol.http.allow', 'always'],
  ['protocol.https.allow', 'always'],
  ['protocol.ext.allow', 'never'],
  ['protocol.ssh.allow', 'never'],
  ['protocol.git.allow', 'never'],
  // Diffs: no external diff program (Kiln also passes --no-ext-diff and --no-textconv).
  ['diff.external', ''],
  // Archives: git's own gzip for the formats Kiln asks for.
  ['tar.tar.gz.command', 'git archive gzip'],
  ['tar.tgz.command', 'git archive gzip'],
  // Signatures are checked with the system's programs, never a configured one.
  ['gpg.program', 'gpg'],
  ['gpg.openpgp.program', 'gpg'],
  ['gpg.x509.program', 'gpgsm'],
  ['gpg.ssh.program', 'ssh-keygen'],
  ['gpg.ssh.defaultKeyCommand', ''],
  // Attributes only from the repository's tree, never from a file a config names.
  ['core.attributesFile', '/dev/null'],
];

/** The keys above, lowercased: a caller's own `-c` may not set them again. */
const PINNED_KEYS = new Set(NEUTRAL.map(([key]) => key.toLowerCase()));
/** Made once: every git Kiln starts (each page, each push) begins with these. */
const PINNED_ARGS: readonly string[] = Object.freeze([
  '--no-pager',
  ...NEUTRAL.flatMap(([key, value]) => ['-c', `${key}=${value}`]),
]);

/**
 * The arguments every git starts with (before the caller's): `--no-pager` and a `-c` for each
 * pinned key. Throws when the caller's arguments would set a pinned key again (a later `-c` wins).
 */
export function pinnedConfigArgs(callerArgs: readonly string[]): readonly string[] {
  requireRunnableHooks();
  for (let i = 0; i < callerArgs.length - 1; i++) {
    if (callerArgs[i] !== '-c') continue;
    const key = callerArgs[i + 1]!.split('=')[0]!.toLowerCase();
    if (PINNED_KEYS.has(key)) throw new Error(`git config ${key} is pinned and may not be set`);
  }
  return PINNED_ARGS;
}

/** The config keys pinned on every git's command line (tests and docs). */
export const PINNED_CONFIG_KEYS: readonly string[] = NEUTRAL.map(([key]) => key);
