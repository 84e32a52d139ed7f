import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got. */
export type Received = {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
};

/** How the receiver answers its n-th request (0-based): a status, or `hang` to never answer. */
export type Answer = (index: number) => number | 'hang';

/**
 * A real webhook receiver on 127.0.0.1 (an ephemeral port) that records every request and
 * answers as told.
 */
export class Receiver {
  readonly received: Received[] = [];
  readonly #server: Server;
  #answer: Answer;
  #waiters: Array<() => void> = [];

  private constructor(server: Server, answer: Answer) {
    this.#server = server;
    this.#answer = answer;
  }

  static async start(answer: Answer = () => 200): Promise<Receiver> {
    let self: Receiver | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const receiver = self as Receiver;
        const index = receiver.received.length;
        receiver.received.push({
          method: request.method ?? '',
          url: request.url ?? '',
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        for (const wake of receiver.#waiters.splice(0)) wake();
        const status = receiver.#answer(index);
        if (status === 'hang') return;
        response.writeHead(status, { 'content-type': 'text/plain', 'x-receiver': 'yes' });
        response.end(`answer ${index}`);
      });
    });
    self = new Receiver(server, answer);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return self;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  answerWith(answer: Answer): void {
    this.#answer = answer;
  }

  /** The requests whose `X-Gitea-Event-Type` is `type`. */
  ofType(type: string): Received[] {
    return this.received.filter((entry) => entry.headers['x-gitea-event-type'] === type);
  }

  /** Waits until `count` requests match (or `timeoutMs` passes, then throws). */
  async waitFor(
    match: (entry: Received) => boolean,
    count = 1,
    timeoutMs = 15_000,
  ): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.filter(match);
      if (found.length >= count) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`receiver: ${found.length} of ${count} requests arrived`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 250));
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
