import { Unavailable } from '../domain/errors.ts';
import { asError } from '../lib/thrown.ts';
import { type GitProcess, spawnGit } from './command.ts';
import { KeptAnswers, type KeptAnswersTally, type KeptQuestion } from './kept-answers.ts';
import { isObjectType, type ObjectType } from './objects/object-type.ts';

/**
 * One long-lived `git cat-file --batch-command` for one repository. Requests are written as they
 * come and answered strictly in order, so the pending queue and the output stream line up; each
 * object's bytes are consumed in full (kept up to a cap, the rest skipped) before the next header.
 */

export interface ObjectInfo {
  readonly sha: string;
  readonly type: ObjectType;
  readonly sizeBytes: number;
}

export interface ObjectData extends ObjectInfo {
  /** The object's bytes, at most the cap the request asked for. */
  readonly content: Buffer;
  readonly truncated: boolean;
}

interface Pending {
  readonly kind: 'info' | 'contents';
  readonly object: string;
  readonly maxBytes: number;
  /** Where its answer is kept, when the name can never change (kept-answers.ts). */
  readonly keptAs: KeptQuestion | undefined;
  readonly resolve: (value: ObjectData | undefined) => void;
  readonly reject: (error: Error) => void;
  timer: NodeJS.Timeout | undefined;
}

const HEADER = /^([0-9a-f]{40}|[0-9a-f]{64}) ([a-z]+) (\d+)$/;

/** The process went away before answering; the request may be retried on a fresh one. */
export class CatFileGone extends Unavailable {}

export class CatFileProcess {
  readonly key: string;
  private readonly proc: GitProcess;
  private readonly requestTimeoutMs: number;
  private readonly queue: Pending[] = [];
  private readonly kept: KeptAnswers;
  private buffered: Buffer = Buffer.alloc(0);
  /** The object being read: its header, the bytes kept so far, and how many are still to come. */
  private body: { info: ObjectInfo; chunks: Buffer[]; kept: number; remaining: number } | undefined;
  private closing = false;
  /** Set when the process is being killed: whatever it still prints is no longer trusted. */
  private broken = false;
  private exited = false;
  private readonly exit: Promise<void>;

  /** @param onExit called once when the process is gone, however that happened. */
  constructor(
    key: string,
    gitDir: string,
    requestTimeoutMs: number,
    onExit: (process: CatFileProcess) => void,
    tally?: KeptAnswersTally,
  ) {
    this.key = key;
    this.kept = new KeptAnswers(tally);
    this.requestTimeoutMs = requestTimeoutMs;
    this.proc = spawnGit(['cat-file', '--batch-command'], { gitDir, timeoutMs: 0 });
    this.proc.stdout.on('data', (chunk: Buffer) => this.receive(chunk));
    this.exit = this.proc.done
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        this.exited = true;
        for (const pending of this.queue.splice(0)) {
          clearTimeout(pending.timer);
          pending.reject(new CatFileGone('cat-file exited before answering'));
        }
        this.kept.forget();
        onExit(this);
      });
  }

  /** The git process id, for diagnostics. */
  get pid(): number | undefined {
    return this.proc.pid;
  }

  get pendingCount(): number {
    return this.queue.length;
  }

  /** Whether new requests may be sent: running and not asked to close. */
  get usable(): boolean {
    return !this.exited && !this.closing;
  }

  /** Asks for an object's type and size (`info`) or also its bytes (`contents`). */
  request(kind: 'info' | 'contents', object: string, maxBytes = Number.POSITIVE_INFINITY) {
    return new Promise<ObjectData | undefined>((resolve, reject) => {
      if (!this.usable) {
        reject(new CatFileGone('cat-file process is closing'));
        return;
      }
      const keptAs = KeptAnswers.keyOf(kind, object, maxBytes);
      const known = keptAs === undefined ? undefined : this.kept.get(keptAs);
      if (known !== undefined) {
        resolve(known);
        return;
      }
      const pending: Pending = {
        kind,
        object,
        maxBytes,
        keptAs,
        resolve,
        reject,
        timer: undefined,
      };
      if (this.requestTimeoutMs > 0) {
        pending.timer = setTimeout(() => {
          // The stream position is unknowable now: fail this request and start over.
          this.remove(pending);
          reject(new Unavailable(`cat-file did not answer within ${this.requestTimeoutMs} ms`));
          this.kill();
        }, this.requestTimeoutMs);
      }
      this.queue.push(pending);
      this.proc.stdin.write(`${kind} ${object}\n`);
    });
  }

  /** Finishes what was asked, then exits: cat-file answers its remaining input before EOF ends it. */
  close(): Promise<void> {
    if (!this.closing) {
      this.closing = true;
      this.proc.stdin.end();
    }
    return this.exit;
  }

  /** Ends the process at once; unanswered requests fail with CatFileGone. */
  kill(): Promise<void> {
    this.closing = true;
    this.broken = true;
    this.proc.kill('was killed');
    return this.exit;
  }

  private remove(pending: Pending): void {
    const index = this.queue.indexOf(pending);
    if (index !== -1) this.queue.splice(index, 1);
  }

  private receive(chunk: Buffer): void {
    if (this.broken) return;
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    try {
      while (this.step()) {
        // Keep answering while whole answers are buffered.
      }
    } catch (error) {
      this.kill();
      this.queue.shift()?.reject(asError(error));
    }
  }

  /** Consumes one header or one piece of a body; returns whether more may be consumable. */
  private step(): boolean {
    if (this.body) return this.readBody(this.body);
    const newline = this.buffered.indexOf(0x0a);
    if (newline === -1) return false;
    const line = this.buffered.toString('utf8', 0, newline);
    this.buffered = this.buffered.subarray(newline + 1);
    const pending = this.queue[0];
    if (!pending) throw new Error(`cat-file answered nothing that was asked: ${line}`);
    const match = HEADER.exec(line);
    if (!match) {
      if (line.endsWith(' missing') || line.endsWith(' ambiguous')) {
        this.answer(undefined);
        return true;
      }
      throw new Error(`unexpected cat-file output: ${line}`);
    }
    const [, sha = '', type = '', size = '0'] = match;
    if (!isObjectType(type)) throw new Error(`unexpected object type: ${type}`);
    const info: ObjectInfo = { sha, type, sizeBytes: Number(size) };
    if (pending.kind === 'info') {
      this.answer({ ...info, content: Buffer.alloc(0), truncated: false });
      return true;
    }
    // The object's bytes are followed by one LF.
    this.body = { info, chunks: [], kept: 0, remaining: info.sizeBytes + 1 };
    return true;
  }

  private readBody(body: NonNullable<CatFileProcess['body']>): boolean {
    if (this.buffered.length === 0) return false;
    const take = Math.min(body.remaining, this.buffered.length);
    const piece = this.buffered.subarray(0, take);
    this.buffered = this.buffered.subarray(take);
    body.remaining -= take;
    const limit = Math.min(this.queue[0]?.maxBytes ?? 0, body.info.sizeBytes);
    if (body.kept < limit) {
      const keep = piece.subarray(0, limit - body.kept);
      body.chunks.push(keep);
      body.kept += keep.length;
    }
    if (body.remaining > 0) return false;
    this.body = undefined;
    const content = Buffer.concat(body.chunks, body.kept);
    this.answer({ ...body.info, content, truncated: body.kept < body.info.sizeBytes });
    return true;
  }

  private answer(value: ObjectData | undefined): void {
    const pending = this.queue.shift();
    if (!pending) return;
    clearTimeout(pending.timer);
    if (value !== undefined && pending.keptAs !== undefined) {
      this.kept.keep(pending.keptAs, value);
    }
    pending.resolve(value);
  }
}
