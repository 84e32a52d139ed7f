import type { Socket } from 'node:net';
import { pipeline, type Readable } from 'node:stream';
import { promisify } from 'node:util';
import { createGunzip, gunzip } from 'node:zlib';
import { Invalid } from '../domain/errors.ts';
import { asError, errorCode } from '../lib/thrown.ts';
import { type GitProcess, outputStream, runGit, spawnGit } from './command.ts';
import { GitError } from './git-error.ts';
import { ensureHooks, frozenRefsEnv, protectedRefsEnv } from './hooks.ts';
import { encodePktLine, FLUSH_PKT } from './pkt-line.ts';
import { type PushCommand, PushCommandReader } from './push-commands.ts';
import { type PushRule, writePushRules } from './push-rules.ts';
import { isValidRefName, isZeroSha } from './ref-names.ts';
import { type RefChange, snapshotRefs } from './refs.ts';
import { requireRepository } from './repo-exists.ts';
import type { RepoHandle } from './repo-paths.ts';

/**
 * Git's smart HTTP protocol as stream functions (what `git http-backend` does), for the HTTP edge
 * to call after it has authenticated the request and chosen the content types.
 */

export type GitService = 'git-upload-pack' | 'git-receive-pack';

export function isGitService(value: unknown): value is GitService {
  return value === 'git-upload-pack' || value === 'git-receive-pack';
}

export interface TransportOptions {
  /** The request's `Git-Protocol` header, raw: it is filtered here before reaching git. */
  gitProtocol?: string | undefined;
  /** The request body is gzip-compressed (`Content-Encoding: gzip`). */
  gzip?: boolean;
  /** Stops git, e.g. when the server shuts down. */
  signal?: AbortSignal;
  /**
   * One request and its answer (smart HTTP, the default), or false for a whole conversation
   * on one stream (SSH): git then advertises its refs first and reads the client's turns itself.
   */
  stateless?: boolean;
}

export interface ReceivePackOptions extends TransportOptions {
  /** Full ref names the pre-receive hook must not let this push delete or rewind. */
  protectedRefs?: readonly string[];
  /** Shell patterns over full ref names, likewise (see `protectedRefsEnv`). */
  protectedPatterns?: readonly string[];
  /** Full ref names this push may not touch at all (the pusher may not push there). */
  frozenRefs?: readonly string[];
  /** Shell patterns over full ref names, likewise (see `frozenRefsEnv`). */
  frozenPatterns?: readonly string[];
  /** What the hook checks in the pushed commits (push-rules.ts). */
  pushRules?: readonly PushRule[];
  /** git's allowed-signers list (`principal key` lines) for rules that want signed commits. */
  allowedSigners?: string;
}

export interface PushResult {
  /** Refs this push moved, as far as can be seen once receive-pack has exited. */
  readonly changes: readonly RefChange[];
  /** Why receive-pack failed (killed, client gone), when it did; refs may still have moved. */
  readonly error: Error | undefined;
}

export interface ReceivePack {
  readonly output: Readable;
  /**
   * Whether the client asked for its answer in side-band channels, so that more lines for it to
   * show (`remote: …`) may go on channel 2 before the final flush. Known once git has the
   * commands, which is before its answer ends.
   */
  readonly sideband: () => boolean;
  /** Whether the client's commands have all gone to git (its answer comes after them). */
  readonly commandsRead: () => boolean;
  /** Settles after receive-pack has exited; never rejects. */
  readonly result: Promise<PushResult>;
}

const PROTOCOL_ITEM = /^version=[012]$/;

/**
 * The `Git-Protocol` header reduced to what Kiln passes to git as `GIT_PROTOCOL`: colon-separated
 * items, of which only `version=0|1|2` are kept. Undefined when nothing is left.
 */
export function sanitizeGitProtocol(header: string | undefined): string | undefined {
  if (header === undefined || header.length > 256) return undefined;
  const items = header.split(':').filter((item) => PROTOCOL_ITEM.test(item));
  return items.length === 0 ? undefined : [...new Set(items)].join(':');
}

function uploadGzip(options: TransportOptions): { limit: number } | undefined {
  return options.gzip === true ? { limit: INFLATED_REQUEST_LIMIT } : undefined;
}

function protocolEnv(options: TransportOptions): Record<string, string> {
  const protocol = sanitizeGitProtocol(options.gitProtocol);
  return protocol === undefined ? {} : { GIT_PROTOCOL: protocol };
}

function serviceArgs(service: GitService): string[] {
  // upload-pack --strict: the directory itself must be the repository (no `<dir>/.git` guessing).
  return service === 'git-upload-pack' ? ['upload-pack', '--strict'] : ['receive-pack'];
}

/** The arguments that run `service` on `repo` for one request, or for a whole conversation. */
function serviceCommand(
  service: GitService,
  repo: RepoHandle,
  options: TransportOptions,
): string[] {
  const stateless = options.stateless === false ? [] : ['--stateless-rpc'];
  return [...serviceArgs(service), ...stateless, repo.path];
}

/**
 * The body of `GET …/info/refs?service=…`: the `# service=` announcement and a flush (omitted
 * for protocol v2, as git http-backend does), then git's own advertisement.
 *
 * @throws NotFound when the repository does not exist.
 */
export async function advertiseRefs(
  repo: RepoHandle,
  service: GitService,
  options: Pick<TransportOptions, 'gitProtocol' | 'signal'> = {},
): Promise<Buffer> {
  await requireRepository(repo);
  const env = protocolEnv(options);
  const { stdout } = await runGit(
    [...serviceArgs(service), '--stateless-rpc', '--advertise-refs', repo.path],
    {
      cwd: repo.path,
      env,
      signal: options.signal,
    },
  );
  if (env.GIT_PROTOCOL?.split(':').includes('version=2')) return stdout;
  return Buffer.concat([encodePktLine(`# service=${service}\n`), FLUSH_PKT, stdout]);
}

/**
 * How large a gzip-compressed upload-pack request may grow when inflated. git compresses only
 * requests that fit its `http.postBuffer` (1 MiB unless raised), and negotiation text inflates a
 * few times over, so this is far above anything git sends and far below what a few megabytes of
 * deflated repetition become: millions of `have` lines that upload-pack would hold in memory.
 */
export const INFLATED_REQUEST_LIMIT = 32 * 1024 * 1024;

const gunzipWhole = promisify(gunzip);

/**
 * A whole gzip request body, inflated, or undefined when it would grow beyond `limit`.
 *
 * @throws Invalid when the body is not gzip.
 */
export async function inflateRequest(
  body: Buffer,
  limit = INFLATED_REQUEST_LIMIT,
): Promise<Buffer | undefined> {
  try {
    return await gunzipWhole(body, { maxOutputLength: limit });
  } catch (error) {
    if (errorCode(error) === 'ERR_BUFFER_TOO_LARGE') return undefined;
    throw new Invalid('the request body is not valid gzip', { cause: error });
  }
}

/**
 * Streams the request body (gunzipped if need be, and then cut off beyond `gzip.limit`) into
 * git's stdin; `observe`, when given, sees each chunk git gets until it answers false, without
 * becoming a stage every byte passes through.
 */
function feed(
  proc: GitProcess,
  input: Readable,
  gzip: { readonly limit: number } | undefined,
  observe?: (chunk: Buffer) => boolean,
): void {
  const gunzip = gzip ? createGunzip() : undefined;
  const body: Readable = gunzip ?? input;
  if (gunzip && gzip) {
    let inflated = 0;
    gunzip.on('data', (chunk: Buffer) => {
      inflated += chunk.length;
      if (inflated > gzip.limit) gunzip.destroy(new Invalid('the inflated request is too large'));
    });
  }
  // Git may finish and close its stdin before the body has formally ended (a broken pipe): its
  // exit status tells how that went. Any other failure, a client that disconnects mid-body or a
  // corrupt gzip stream, stops git; the output stream then fails and the edge drops the
  // connection. Nothing is thrown here.
  let gitStoppedReading = false;
  proc.stdin.once('error', () => {
    gitStoppedReading = true;
  });
  pipeline(gunzip ? [input, gunzip, proc.stdin] : [input, proc.stdin], (error) => {
    if (error && !gitStoppedReading) proc.kill('the request body failed');
  });
  if (observe) {
    // A second reader of the chunks the pipeline moves: it neither copies nor holds them up.
    const look = (chunk: Buffer) => {
      if (!observe(chunk)) body.off('data', look);
    };
    body.on('data', look);
  }
}

/** How long git's probe is: a request body of any other length is not one. */
export const PROBE_LENGTH = FLUSH_PKT.length;

/**
 * Whether a request body is git's probe: a flush packet alone, which the client sends before a
 * body too large to send twice (a push beyond `http.postBuffer`), so that an authentication
 * challenge comes before the pack. Upload-pack and receive-pack read no command from it and
 * answer nothing, so the edge may give that empty answer without starting either.
 */
export function isProbe(body: Buffer): boolean {
  return body.equals(FLUSH_PKT);
}

/**
 * `POST …/git-upload-pack`: runs `git upload-pack --stateless-rpc` with the request body as input
 * and returns its output, streamed both ways.
 *
 * @throws NotFound when the repository does not exist (before any byte is read or written).
 */
export async function uploadPack(
  repo: RepoHandle,
  input: Readable,
  options: TransportOptions = {},
): Promise<Readable> {
  await requireRepository(repo);
  const proc = spawnGit(serviceCommand('git-upload-pack', repo, options), {
    cwd: repo.path,
    env: protocolEnv(options),
    signal: options.signal,
  });
  feed(proc, input, uploadGzip(options));
  return outputStream(blamingClient(proc));
}

/**
 * `git upload-archive` over a stream (SSH's `git archive --remote`): git reads the client's
 * arguments itself and, as configured by default, archives only what refs reach.
 *
 * @throws NotFound when the repository does not exist.
 */
export async function uploadArchive(
  repo: RepoHandle,
  input: Readable,
  options: Pick<TransportOptions, 'signal'> = {},
): Promise<Readable> {
  await requireRepository(repo);
  const proc = spawnGit(['upload-archive', repo.path], { cwd: repo.path, signal: options.signal });
  feed(proc, input, undefined);
  return outputStream(blamingClient(proc));
}

/**
 * `POST …/git-upload-pack` with git writing its answer straight into the client's socket, Node
 * relaying nothing, which on a clone of tens of megabytes spares Node more CPU than the rest of
 * the request costs. In two steps, so that a missing repository is known before the caller
 * commits to an answer: this checks the repository and returns the sender, which writes `head`
 * (the HTTP status line and headers, by the caller's rules), then has git write its output. The
 * answer ends when the connection does (the head must say `Connection: close`), and git's own
 * framing tells the client whether it got all of it. The sender resolves once git has exited;
 * the caller closes the socket.
 *
 * @throws NotFound when the repository does not exist.
 */
export async function uploadPackInto(
  repo: RepoHandle,
  input: Readable,
  options: TransportOptions = {},
): Promise<(socket: Socket, head: string) => Promise<void>> {
  await requireRepository(repo);
  return async (socket, head) => {
    // Git must only start writing once the head is out: Node flushes it before the callback.
    await new Promise<void>((resolve, reject) =>
      socket.write(head, (error) => (error ? reject(error) : resolve())),
    );
    const proc = spawnGit([...serviceArgs('git-upload-pack'), '--stateless-rpc', repo.path], {
      cwd: repo.path,
      env: protocolEnv(options),
      signal: options.signal,
      stdoutTo: socket,
    });
    feed(proc, input, uploadGzip(options));
    await blamingClient(proc).done;
  };
}

/**
 * `POST …/git-receive-pack`: runs `git receive-pack --stateless-rpc` with the protected refs in
 * the environment for the pre-receive hook, and reports afterwards which refs the push moved
 * (read from the commands at the head of the request, confirmed against the refs on disk).
 *
 * @throws NotFound when the repository does not exist.
 */
export async function receivePack(
  repo: RepoHandle,
  input: Readable,
  options: ReceivePackOptions = {},
): Promise<ReceivePack> {
  await requireRepository(repo);
  const env = {
    ...protocolEnv(options),
    ...protectedRefsEnv(options.protectedRefs ?? [], options.protectedPatterns ?? []),
    ...frozenRefsEnv(options.frozenRefs ?? [], options.frozenPatterns ?? []),
  };
  // Always: a repository made by an older Kiln gets the current hook before its next push.
  await ensureHooks(repo);
  const ruleFiles = await writePushRules(
    options.pushRules ?? [],
    options.allowedSigners,
    repo.path,
    repo.caches.signatureVerdicts,
  );
  let proc: GitProcess;
  try {
    proc = spawnGit(serviceCommand('git-receive-pack', repo, options), {
      cwd: repo.path,
      env: { ...env, ...ruleFiles?.env },
      signal: options.signal,
    });
  } catch (error) {
    await ruleFiles?.dispose();
    throw error;
  }
  if (ruleFiles) {
    void proc.done
      .catch(() => undefined)
      .then(() => ruleFiles.dispose())
      .catch(() => undefined);
  }
  const commands = new PushCommandReader();
  // No limit: a push's pack may be any size, and pushing needs write access.
  feed(
    proc,
    input,
    options.gzip === true ? { limit: Number.POSITIVE_INFINITY } : undefined,
    (chunk) => commands.push(chunk),
  );
  const output = outputStream(blamingClient(proc));
  const result = proc.done
    .then(
      () => undefined,
      (error: Error) => error,
    )
    .then(async (error): Promise<PushResult> => {
      try {
        return { changes: await appliedCommands(repo, commands.commands), error };
      } catch (snapshotError) {
        return { changes: [], error: error ?? asError(snapshotError) };
      }
    });
  const sideband = () =>
    commands.capabilities.includes('side-band-64k') || commands.capabilities.includes('side-band');
  return { output, result, sideband, commandsRead: () => commands.complete };
}

/** The commands whose refs now hold what the client asked for, sorted by ref name. */
async function appliedCommands(
  repo: RepoHandle,
  commands: readonly PushCommand[],
): Promise<RefChange[]> {
  const wanted = commands.filter(
    (c) => c.oldSha !== c.newSha && c.ref.startsWith('refs/') && isValidRefName(c.ref),
  );
  if (wanted.length === 0) return [];
  // Name the refs when there are few (a short for-each-ref); list all refs otherwise.
  const refs = await snapshotRefs(repo, wanted.length <= 64 ? wanted.map((c) => c.ref) : []);
  const changes: RefChange[] = [];
  for (const command of wanted) {
    const newSha = isZeroSha(command.newSha) ? null : command.newSha;
    if ((refs.get(command.ref) ?? null) === newSha) {
      changes.push({
        ref: command.ref,
        oldSha: isZeroSha(command.oldSha) ? null : command.oldSha,
        newSha,
      });
    }
  }
  return changes.sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
}

/**
 * What git says on stderr, exiting 128, when the request body is not the protocol it expects, or
 * ends early (with --stateless-rpc the "remote end" that hung up is the client's body).
 */
const PROTOCOL_ERROR =
  /protocol error|bad line length|expected (?:flush|to get|shallow|object|pkt|ACK|done)|not our ref|unknown capability|invalid (?:pkt|line|packet|command)|remote end hung up/i;

/**
 * The process with a `done` that turns git's refusal of a malformed request body into `Invalid`:
 * the client's fault, answered 400, where any other failure stays a GitError (a 500).
 */
function blamingClient(proc: GitProcess): GitProcess {
  const done = proc.done.catch((error: unknown) => {
    if (error instanceof GitError && error.exitCode === 128 && PROTOCOL_ERROR.test(error.stderr)) {
      throw new Invalid('git could not read the request: it is not the smart HTTP protocol', {
        cause: error,
      });
    }
    throw error;
  });
  return {
    get pid() {
      return proc.pid;
    },
    stdin: proc.stdin,
    stdout: proc.stdout,
    done,
    kill: (reason) => proc.kill(reason),
  };
}
