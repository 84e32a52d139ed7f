import { PktLineReader } from './pkt-line.ts';

/** One ref update a client asked receive-pack for. */
export interface PushCommand {
  readonly oldSha: string;
  readonly newSha: string;
  readonly ref: string;
}

/** Command sections larger than this are not recorded (git still gets every byte). */
const MAX_COMMAND_BYTES = 4 * 1024 * 1024;
const COMMAND = /^([0-9a-f]{40}|[0-9a-f]{64}) ([0-9a-f]{40}|[0-9a-f]{64}) (\S+)$/;

/**
 * Reads the commands at the head of a receive-pack request as its chunks go by: the pkt-lines
 * `<old> <new> <ref>` (the first with capabilities after a NUL, optional `shallow` lines before)
 * up to the flush that precedes the pack. Parsing stops at that flush, at the first thing it does
 * not understand, or past 4 MiB; `complete` says whether it got them all. It only looks: the
 * chunks go to git untouched, and once `push` answers false it needs none of the rest.
 */
export class PushCommandReader {
  readonly commands: PushCommand[] = [];
  /** The capabilities the client sent after its first command (`report-status`, `side-band-64k`…). */
  capabilities: readonly string[] = [];
  complete = false;
  private reader: PktLineReader | undefined = new PktLineReader();
  private seenBytes = 0;

  /** Reads one more chunk of the request; false once it wants no more. */
  push(chunk: Buffer): boolean {
    if (this.reader) this.parse(chunk);
    return this.reader !== undefined;
  }

  private parse(chunk: Buffer): void {
    const reader = this.reader!;
    this.seenBytes += chunk.length;
    try {
      reader.push(chunk);
      for (let packet = reader.next(); packet; packet = reader.next()) {
        if (packet.kind === 'flush') {
          this.complete = true;
          this.reader = undefined;
          return;
        }
        if (packet.kind !== 'data') throw new Error('unexpected packet');
        const text = packet.payload.toString('utf8');
        const [line = '', capabilities] = text.replace(/\n$/, '').split('\0', 2);
        if (line.startsWith('shallow ')) continue;
        const match = COMMAND.exec(line);
        if (!match) throw new Error('not a command');
        if (this.commands.length === 0 && capabilities !== undefined) {
          this.capabilities = capabilities.split(' ').filter(Boolean);
        }
        this.commands.push({ oldSha: match[1]!, newSha: match[2]!, ref: match[3]! });
      }
      if (this.seenBytes > MAX_COMMAND_BYTES) throw new Error('too many commands');
    } catch {
      this.reader = undefined;
    }
  }
}
