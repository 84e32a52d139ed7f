import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A server's public address as a proxy that can take it off the network: while it is down,
 * every connection is cut at once, as a peer that is unreachable would be. It can go down by
 * itself at the first POST to an inbox (`downAtFirstInbox`), so a test can let a fork's copy
 * through and cut off the announcement that follows it.
 */
export class OutageProxy {
  target = '';
  /** Go down as soon as a POST to an inbox arrives (that request is cut too). */
  downAtFirstInbox = false;
  /** Requests cut while down. */
  cut = 0;
  #down = false;
  #server: Server | undefined;
  readonly #sockets = new Set<Socket>();

  get url(): string {
    const address = this.#server?.address() as AddressInfo | undefined;
    if (!address) throw new Error('not started');
    return `http://127.0.0.1:${address.port}`;
  }

  async start(): Promise<void> {
    this.#server = createServer((req, res) => {
      if (this.downAtFirstInbox && req.method === 'POST' && /\/inbox$/.test(req.url ?? '')) {
        this.downAtFirstInbox = false;
        this.#down = true;
      }
      if (this.#down) {
        this.cut += 1;
        req.socket.destroy();
        return;
      }
      const target = new URL(req.url ?? '/', this.target);
      const out = forward(target, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      out.on('error', () => res.destroy());
      req.pipe(out);
    });
    this.#server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.#server?.listen(0, '127.0.0.1', resolve));
  }

  /** Off the network now. */
  takeDown(): void {
    this.#down = true;
  }

  /** Back on the network. */
  up(): void {
    this.#down = false;
  }

  get down(): boolean {
    return this.#down;
  }

  async stop(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()));
  }
}
