import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSafeFetch } from './safe-fetch.ts';

describe('createSafeFetch', () => {
  let server: Server;
  let port: number;
  let hits = 0;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits += 1;
      res.end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('refuses loopback and private addresses, by literal or by name, before connecting', async () => {
    const safe = createSafeFetch({ allowPrivateAddresses: false });
    const before = hits;
    for (const url of [
      `http://127.0.0.1:${port}/`,
      `http://localhost:${port}/`,
      `http://[::1]:${port}/`,
      'http://10.0.0.1/',
      'http://169.254.169.254/latest/meta-data',
    ]) {
      await expect(safe(new Request(url))).rejects.toThrow();
    }
    await expect(safe(new Request('file:///etc/passwd'))).rejects.toThrow();
    expect(hits).toBe(before);
  });

  it('reaches them when private addresses are allowed (tests only)', async () => {
    const safe = createSafeFetch({ allowPrivateAddresses: true });
    const response = await safe(new Request(`http://localhost:${port}/`));
    expect(await response.json()).toEqual({ ok: true });
  });

  it('refuses answers larger than the limit', async () => {
    const safe = createSafeFetch({ allowPrivateAddresses: true, maxBodyBytes: 4 });
    await expect(safe(new Request(`http://127.0.0.1:${port}/`))).rejects.toThrow(/too large/);
  });
});
