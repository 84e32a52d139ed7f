import { createServer } from 'node:net';

/**
 * A port nobody listens on right now on 127.0.0.1, for a server that must know its port before
 * it starts (Kiln's own base URL, nginx's configuration, an SSH port).
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
