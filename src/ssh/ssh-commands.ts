import type { Readable, Writable } from 'node:stream';
import { NotFound } from '../domain/errors.ts';
import type { SshPrincipal } from '../domain/keys/ssh-key.service.ts';

/** What one `exec` request gets: who asked, what they asked, and the channel's streams. */
export type SshCommandContext = {
  readonly principal: SshPrincipal;
  /** The words after the command's name (unquoted). */
  readonly args: readonly string[];
  /** Variables the client sent with `env` requests that Kiln reads (`GIT_PROTOCOL`). */
  readonly env: Readonly<Record<string, string>>;
  /** What the client sends. */
  readonly input: Readable;
  /** What the client reads as the command's standard output. */
  readonly output: Writable;
  /** Stops the command, when the connection goes away or the server shuts down. */
  readonly signal: AbortSignal;
};

/** Runs one command and resolves to its exit status; what it prints to stderr it returns. */
export type SshCommand = (context: SshCommandContext) => Promise<SshCommandResult>;

/** How a command ended: its exit status, and a line for the client's stderr when it failed. */
export type SshCommandResult = { readonly status: number; readonly message?: string };

/** The commands an SSH client may run, by name: a table so that more can be added beside git's. */
export type SshCommandTable = ReadonlyMap<string, SshCommand>;

/** `owner/name` or `owner/name.git`, with or without a leading slash, and nothing else. */
const REPO_PATH = /^\/?([^/]+)\/([^/]+?)\/?$/;

/** The owner and name a command's repository path names, or undefined for any other path. */
export function repoPathOf(path: string): { owner: string; name: string } | undefined {
  const match = REPO_PATH.exec(path);
  return match?.[1] && match[2] ? { owner: match[1], name: match[2] } : undefined;
}

/** What an LFS command (`git-lfs-transfer`, `git-lfs-authenticate`) is asked about. */
export type LfsCommandTarget = {
  readonly owner: string;
  readonly name: string;
  readonly operation: 'upload' | 'download';
};

/**
 * The `<repo> <upload|download>` of the LFS command `command`: its target, or the result that
 * refuses a command line that is not that (a path that names no repository reads as missing).
 */
export function lfsCommandTarget(
  command: string,
  args: readonly string[],
): LfsCommandTarget | SshCommandResult {
  const [path, operation, ...rest] = args;
  if (
    path === undefined ||
    (operation !== 'upload' && operation !== 'download') ||
    rest.length > 0
  ) {
    return { status: 1, message: `usage: ${command} 'OWNER/NAME.git' upload|download` };
  }
  const target = repoPathOf(path);
  if (!target) throw new NotFound('repository does not exist');
  return { ...target, operation };
}

/** Longest command line read; git's are a path or two long. */
const MAX_COMMAND = 1024;

/**
 * Splits an `exec` command line as git sends it (`git-upload-pack 'owner/name.git'`): the
 * command's name, then words, each bare or in single quotes (git's own quoting: `'\''` for a
 * quote inside). Anything else (double quotes, control characters, a line too long) is not
 * a command Kiln runs, and gives undefined.
 */
export function splitCommand(line: string): { name: string; args: string[] } | undefined {
  if (line.length > MAX_COMMAND || /\p{Cc}/u.test(line)) return undefined;
  const words: string[] = [];
  const word = /\s*((?:'[^']*'|\\'|[^\s'"\\])+)/y;
  let at = 0;
  while (at < line.length) {
    if (/^\s*$/.test(line.slice(at))) break;
    word.lastIndex = at;
    const match = word.exec(line);
    if (!match?.[1]) return undefined;
    words.push(
      match[1].replace(/'([^']*)'|\\'/g, (_all, inner: string | undefined) => inner ?? "'"),
    );
    at = word.lastIndex;
  }
  const [name, ...args] = words;
  if (!name) return undefined;
  // `git upload-pack` is another spelling of `git-upload-pack`.
  if (name === 'git' && args[0]) return { name: `git-${args[0]}`, args: args.slice(1) };
  return { name, args };
}
