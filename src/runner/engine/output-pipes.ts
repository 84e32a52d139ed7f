/**
 * How the runner reads a step's stdout and stderr.
 *
 * Node reads an ordinary pipe the moment anything is written to it, so a step that prints lines
 * one `write` at a time (a shell loop of `echo`s) wakes the runner for every line or two: tens of
 * thousands of reads and stream events per 100,000 lines, costing the runner more CPU than the
 * step spends printing. Here each stream goes through a named pipe (FIFO) that the runner opens
 * non-blocking and reads on its own schedule: at once while the writer keeps the pipe full, after
 * a few milliseconds when it brought little, backing off when it brought nothing. Output then
 * arrives in pieces of many lines, and a writer only waits when it fills the pipe faster than
 * it is read, as with any pipe. End of output is, as before, when every process holding the
 * pipe's write end has closed it.
 *
 * The FIFOs live in a directory of the runner's work root and are used again by later steps.
 * Where none can be made (no `mkfifo` on the host), the ordinary pipes are used.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, constants, mkdirSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { errorCode } from '../thrown.ts';

/** Receives the complete lines of each piece of output, without line breaks. */
export type LinesHandler = (lines: readonly string[]) => void;

/** Splits a text stream into lines, keeping the unfinished tail for the next piece. */
function lineSplitter(onLines: LinesHandler) {
  let tail = '';
  return {
    push(piece: string) {
      const text = tail + piece;
      const lines: string[] = [];
      let start = 0;
      for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
        lines.push(text.slice(start, text.charCodeAt(end - 1) === 13 ? end - 1 : end));
        start = end + 1;
      }
      tail = text.slice(start);
      if (lines.length > 0) onLines(lines);
    },
    end() {
      if (tail !== '') onLines([tail]);
      tail = '';
    },
  };
}

/** Reads a Node stream (an ordinary pipe) to its end. */
export function readStream(stream: Readable, onLines: LinesHandler): Promise<void> {
  const lines = lineSplitter(onLines);
  stream.setEncoding('utf8').on('data', (piece: string) => lines.push(piece));
  return new Promise((resolve) => {
    stream.on('close', () => {
      lines.end();
      resolve();
    });
  });
}

/** A FIFO whose read end the runner holds and whose write end goes to the child. */
export type OutputFifo = {
  readonly path: string;
  /** The write end, for `spawn`'s `stdio`; close it once the child has started. */
  readonly writer: number;
  readonly reader: number;
};

/** Linux pipes hold 64 KiB; a read of half that or more means the writer may be waiting. */
const BUSY_READ = 32 * 1024;
/** Wait after a read that brought little, so that more output gathers for the next one. */
const GATHER_MS = 4;
/** Longest wait between reads of a pipe that has stayed empty. */
const IDLE_MAX_MS = 50;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * FIFOs free for another step, by directory. Making one takes a process (`mkfifo`), so each is
 * made once and used again: a FIFO is given back only after its reader saw the end of output,
 * when no process holds it open any more.
 */
const idle = new Map<string, string[]>();

function makeFifos(dir: string, paths: readonly string[]): Promise<boolean> {
  return new Promise((resolve) => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    execFile('mkfifo', ['-m', '600', ...paths], (error) => resolve(!error));
  });
}

function open(path: string): OutputFifo {
  // The read end first: opening the write end of a FIFO waits for a reader.
  const reader = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    return { path, reader, writer: openSync(path, constants.O_WRONLY) };
  } catch (error) {
    closeSync(reader);
    throw error;
  }
}

/** Opens `count` FIFOs in `dir`, reused or new, or answers undefined when none can be made. */
export async function openFifos(dir: string, count: number): Promise<OutputFifo[] | undefined> {
  const free = idle.get(dir) ?? [];
  idle.set(dir, free);
  const fifos: OutputFifo[] = [];
  while (fifos.length < count && free.length > 0) {
    const path = free.pop() ?? '';
    try {
      fifos.push(open(path));
    } catch {
      // Removed or replaced meanwhile: forgotten, a new one is made.
    }
  }
  const fresh = Array.from({ length: count - fifos.length }, () =>
    join(dir, `output-${randomUUID()}`),
  );
  try {
    if (fresh.length > 0 && !(await makeFifos(dir, fresh))) throw new Error('no mkfifo');
    for (const path of fresh) fifos.push(open(path));
    return fifos;
  } catch {
    for (const fifo of fifos) {
      closeSync(fifo.reader);
      closeSync(fifo.writer);
      free.push(fifo.path);
    }
    return undefined;
  }
}

/** Makes a FIFO whose reader has seen the end of output available to the next step. */
export function releaseFifo(dir: string, fifo: OutputFifo): void {
  idle.get(dir)?.push(fifo.path);
}

/** Reads a FIFO's read end until every writer has closed it, then closes it. Never fails. */
export async function readFifo(reader: number, onLines: LinesHandler): Promise<void> {
  const lines = lineSplitter(onLines);
  const decoder = new StringDecoder('utf8');
  const buffer = Buffer.allocUnsafe(256 * 1024);
  let idleMs = GATHER_MS;
  try {
    for (;;) {
      let read: number;
      try {
        read = readSync(reader, buffer, 0, buffer.length, null);
      } catch (error) {
        // Anything but "nothing yet" ends the output, as a broken pipe would.
        if (errorCode(error) !== 'EAGAIN') break;
        await sleep(idleMs);
        idleMs = Math.min(idleMs * 2, IDLE_MAX_MS);
        continue;
      }
      if (read === 0) break;
      lines.push(decoder.write(buffer.subarray(0, read)));
      idleMs = GATHER_MS;
      if (read < BUSY_READ) await sleep(GATHER_MS);
    }
    lines.push(decoder.end());
    lines.end();
  } finally {
    closeSync(reader);
  }
}
