import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostAllowlist } from '../lib/host-allowlist.ts';
import { OutboundError, sendOutbound } from './outbound-request.ts';

const open = new HostAllowlist(['loopback']);
const publicOnly = new HostAllowlist(['external']);
const base = { timeoutMs: 2_000, maxBodyBytes: 1024, overflow: 'fail' } as const;

describe('sendOutbound', () => {
  let server: Server;
  let origin: string;
  let hits = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits += 1;
      if (req.url === '/redirect') {
        res.writeHead(302, { location: 'http://10.0.0.1/' }).end();
      } else if (req.url === '/large') {
        res.end('x'.repeat(4096));
      } else if (req.url === '/silent') {
        res.write('a');
      } else {
        res.setHeader('set-cookie', ['a=1', 'b=2']);
        res.end(`${req.method} ${req.headers['content-length'] ?? '-'}`);
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('sends the body and answers with every header line', async () => {
    const answer = await sendOutbound(
      { url: `${origin}/`, method: 'POST', headers: {}, body: Buffer.from('hello') },
      { ...base, policy: open },
    );
    expect(answer.body.toString()).toBe('POST 5');
    expect(answer.headers.filter(([name]) => name === 'set-cookie')).toHaveLength(2);
  });

  it('refuses addresses the policy does not admit, by literal or by name, before connecting', async () => {
    const before = hits;
    const port = new URL(origin).port;
    for (const url of [
      `${origin}/`,
      `http://localhost:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      'http://169.254.169.254/latest/meta-data',
      'file:///etc/passwd',
      'not a url',
    ]) {
      await expect(
        sendOutbound({ url, method: 'GET', headers: {} }, { ...base, policy: publicOnly }),
      ).rejects.toBeInstanceOf(OutboundError);
    }
    expect(hits).toBe(before);
  });

  it('answers a redirect as itself, never following it', async () => {
    const answer = await sendOutbound(
      { url: `${origin}/redirect`, method: 'GET', headers: {} },
      { ...base, policy: open },
    );
    expect(answer.status).toBe(302);
  });

  it('keeps the first bytes of a large answer, or refuses it, as asked', async () => {
    const request = { url: `${origin}/large`, method: 'GET', headers: {} };
    const kept = await sendOutbound(request, { ...base, policy: open, overflow: 'keep-first' });
    expect(kept.body.length).toBe(1024);
    await expect(sendOutbound(request, { ...base, policy: open })).rejects.toThrow(/too large/);
  });

  it('gives up on a peer that never finishes its answer', async () => {
    await expect(
      sendOutbound(
        { url: `${origin}/silent`, method: 'GET', headers: {} },
        { ...base, policy: open, timeoutMs: 200 },
      ),
    ).rejects.toThrow(/did not answer/);
  });
});
