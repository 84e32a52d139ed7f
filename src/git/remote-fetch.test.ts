import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Invalid } from '../domain/errors.ts';
import { remoteDefaultBranch } from './remote-fetch.ts';

describe('remote fetches', () => {
  let server: Server;
  let port: number;
  const hosts: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      hosts.push(req.headers.host ?? '');
      // A redirect to the same server: followed, it would be a second request here.
      res.writeHead(302, { location: `http://${req.headers.host}/elsewhere.git/info/refs` });
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('connects to the pinned address, never resolving the name, and follows no redirect', async () => {
    const pinned = { host: 'pinned.invalid', port, address: '127.0.0.1' };
    const url = `http://pinned.invalid:${port}/ada/tool.git`;
    await expect(remoteDefaultBranch(url, { allowHttp: true, pinned })).rejects.toThrow();
    expect(hosts).toEqual([`pinned.invalid:${port}`]);
  });

  it('refuses every transport but https (and http when allowed) before running git', async () => {
    const pinned = { host: 'example.com', port: 443, address: '93.184.215.14' };
    const urls = fc.oneof(
      fc.constantFrom('file:///etc', 'ext::sh -c id', 'ssh://example.com/x', 'git://example.com/x'),
      fc.webUrl().map((url) => url.replace(/^https?:/, 'http:')),
      fc.webUrl({ withQueryParameters: true }).map((url) => url.replace('://', '://user:pw@')),
    );
    await fc.assert(
      fc.asyncProperty(urls, async (url) => {
        await expect(remoteDefaultBranch(url, { allowHttp: false, pinned })).rejects.toThrow(
          Invalid,
        );
      }),
      { numRuns: 60 },
    );
  });
});
