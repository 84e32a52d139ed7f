import { Unavailable } from '../domain/errors.ts';
import { type GitProcess, spawnGit } from './command.ts';
import type { PooledProcess } from './process-pool.ts';
import { noteRepositoryChange } from './repo-changes.ts';

/** The process was gone before a transaction was sent: nothing changed, so it may be retried. */
export class RefUpdaterGone extends Unavailable {}

/**
 * One long-lived `git update-ref --stdin` for one repository, running one transaction at a time
 * (`start`, `update <ref> <new> <old>`, `prepare`, `commit`; RefUpdatePool takes turns), so moving a branch by
 * compare-and-swap costs a pipe round trip instead of a process. git takes and checks the ref's
 * lock file exactly as a one-shot `update-ref` would. A transaction git refuses (the ref is not
 * at the expected value, or is locked) ends the process; its stderr becomes the domain error and
 * the pool starts a fresh process for the next one.
 */
export class RefUpdateProcess implements PooledProcess {
  readonly key: string;
  readonly #proc: GitProcess;
  readonly #timeoutMs: number;
  /** The transaction in flight: the pool gives a repository's process one at a time. */
  #inFlight: Promise<void> | undefined;
  #output = '';
  #waiter: ((line: string) => void) | undefined;
  #closing = false;
  #exited = false;
  readonly #exit: Promise<unknown>;

  constructor(
    key: string,
    gitDir: string,
    timeoutMs: number,
    onExit: (process: RefUpdateProcess) => void,
  ) {
    this.key = key;
    this.#timeoutMs = timeoutMs;
    this.#proc = spawnGit(['update-ref', '-m', 'kiln', '--stdin'], { gitDir, timeoutMs: 0 });
    this.#proc.stdout.setEncoding('utf8');
    this.#proc.stdout.on('data', (text: string) => this.#receive(text));
    // Settles with the domain error (or GitError) the exit means, or undefined after a clean one.
    this.#exit = this.#proc.done.then(
      () => undefined,
      (error: unknown) => error,
    );
    void this.#exit.then(() => {
      this.#exited = true;
      this.#waiter?.('');
      onExit(this);
    });
  }

  get usable(): boolean {
    return !this.#exited && !this.#closing;
  }

  get pendingCount(): number {
    return this.#inFlight ? 1 : 0;
  }

  /**
   * Moves `ref` from `expectedOld` to `newSha` (a zero id creates it), or fails with git's reason
   * translated: Conflict when the ref is elsewhere or locked by another writer.
   */
  update(ref: string, newSha: string, expectedOld: string): Promise<void> {
    if (this.#inFlight)
      return Promise.reject(new Error('update-ref runs one transaction at a time'));
    const run = this.#transaction(`update ${ref} ${newSha} ${expectedOld}\n`).finally(() => {
      this.#inFlight = undefined;
    });
    this.#inFlight = run;
    return run;
  }

  /** Lets the transaction in flight finish, then ends git's input, which ends git. */
  close(): Promise<void> {
    if (!this.#closing) {
      this.#closing = true;
      const finished = this.#inFlight?.catch(() => undefined) ?? Promise.resolve();
      void finished.then(() => this.#proc.stdin.end());
    }
    return this.#exit.then(() => undefined);
  }

  kill(): Promise<void> {
    this.#closing = true;
    this.#proc.kill('was killed');
    return this.#exit.then(() => undefined);
  }

  async #transaction(command: string): Promise<void> {
    // Nothing has been sent yet, so the pool may safely run it on a fresh process.
    if (this.#exited || this.#closing)
      throw new RefUpdaterGone('update-ref was closing before the transaction started');
    const answered = new Promise<string>((resolve) => {
      this.#waiter = resolve;
    });
    const timer = setTimeout(
      () => this.#proc.kill(`timed out after ${this.#timeoutMs} ms`),
      this.#timeoutMs,
    );
    this.#proc.stdin.write(`start\n${command}prepare\ncommit\n`);
    try {
      const line = await answered;
      if (line === 'commit: ok') return;
      // git died mid-transaction: what it said on stderr is the reason.
      const reason = await this.#exit;
      throw reason instanceof Error ? reason : new Unavailable('update-ref exited mid-transaction');
    } finally {
      noteRepositoryChange();
      clearTimeout(timer);
      this.#waiter = undefined;
    }
  }

  /** Waits for git's `commit: ok`; the `start: ok` and `prepare: ok` before it carry nothing. */
  #receive(text: string): void {
    this.#output += text;
    let newline = this.#output.indexOf('\n');
    while (newline !== -1) {
      const line = this.#output.slice(0, newline);
      this.#output = this.#output.slice(newline + 1);
      if (line === 'commit: ok') this.#waiter?.(line);
      newline = this.#output.indexOf('\n');
    }
  }
}
